// SPDX-License-Identifier: MIT
#pragma once
/// \file json_int.h
/// Integers read from JSON that a file supplied. nlohmann's get<I>() turns a JSON float into an
/// integer with a plain cast (undefined behaviour beyond I's range) and an out-of-range integer
/// into a truncated one; these refuse both (the fuzz findings of docs/reliability.md).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace quantscope {

/// Thrown by jsonInteger / jsonIntegers; the caller names the file (its what() names the field).
struct JsonIntegerError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// `v` as an I: an integer JSON number within I's range, else JsonIntegerError naming `what`.
template <typename I> I jsonInteger(const nlohmann::json &v, const std::string &what)
{
    const bool ok = v.is_number_unsigned()  ? std::in_range<I>(v.get<std::uint64_t>())
                    : v.is_number_integer() ? std::in_range<I>(v.get<std::int64_t>())
                                            : false;
    if (!ok)
        throw JsonIntegerError("'" + what + "' must be an integer in range, got " + v.dump());
    return v.is_number_unsigned() ? static_cast<I>(v.get<std::uint64_t>()) : static_cast<I>(v.get<std::int64_t>());
}

/// A JSON array of integers, each as jsonInteger.
template <typename I> std::vector<I> jsonIntegers(const nlohmann::json &v, const std::string &what)
{
    if (!v.is_array())
        throw JsonIntegerError("'" + what + "' must be a list of integers, got " + v.dump());
    std::vector<I> out;
    out.reserve(v.size());
    for (const auto &e : v)
        out.push_back(jsonInteger<I>(e, what));
    return out;
}

} // namespace quantscope
