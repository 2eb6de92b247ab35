// SPDX-License-Identifier: MIT
#include "tensor/dtype.h"

#include <array>

namespace quantscope {

namespace {

struct DTypeInfo {
    DType type;
    std::string_view name;
    int bits;
    bool floating;
    bool decodable;
};

// One row per enumerator, in enum order (checked below). The names of the first 22 are the
// safetensors `Dtype` strings (docs/toolkits.md §1.4). C64 is complex: not decodable to one float,
// and not "floating" in the torch.is_floating_point sense.
constexpr std::array<DTypeInfo, kDTypeCount> kInfo{{
    {DType::BOOL, "BOOL", 8, false, true},
    {DType::F4, "F4", 4, true, true},
    {DType::F6_E2M3, "F6_E2M3", 6, true, true},
    {DType::F6_E3M2, "F6_E3M2", 6, true, true},
    {DType::U8, "U8", 8, false, true},
    {DType::I8, "I8", 8, false, true},
    {DType::F8_E5M2, "F8_E5M2", 8, true, true},
    {DType::F8_E4M3, "F8_E4M3", 8, true, true},
    {DType::F8_E8M0, "F8_E8M0", 8, true, true},
    {DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, true, true},
    {DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, true, true},
    {DType::I16, "I16", 16, false, true},
    {DType::U16, "U16", 16, false, true},
    {DType::F16, "F16", 16, true, true},
    {DType::BF16, "BF16", 16, true, true},
    {DType::I32, "I32", 32, false, true},
    {DType::U32, "U32", 32, false, true},
    {DType::F32, "F32", 32, true, true},
    {DType::C64, "C64", 64, false, false},
    {DType::F64, "F64", 64, true, true},
    {DType::I64, "I64", 64, false, true},
    {DType::U64, "U64", 64, false, true},
    {DType::I4, "I4", 4, false, true},
    {DType::U4, "U4", 4, false, true},
}};

constexpr bool tableInEnumOrder()
{
    for (std::size_t i = 0; i < kInfo.size(); ++i)
        if (static_cast<std::size_t>(kInfo[i].type) != i)
            return false;
    return true;
}
static_assert(tableInEnumOrder(), "kInfo must list the DType enumerators in order");
static_assert(static_cast<int>(DType::U64) + 1 == kSafetensorsDTypeCount,
              "the safetensors dtypes are the first kSafetensorsDTypeCount enumerators");

const DTypeInfo *infoOf(DType t) noexcept
{
    const auto i = static_cast<std::size_t>(t);
    return i < kInfo.size() ? &kInfo[i] : nullptr;
}

} // namespace

int bitsOf(DType t) noexcept
{
    const DTypeInfo *info = infoOf(t);
    return info ? info->bits : 0;
}

std::string_view nameOf(DType t) noexcept
{
    const DTypeInfo *info = infoOf(t);
    return info ? info->name : std::string_view{};
}

std::optional<DType> dtypeFromSafetensors(std::string_view s) noexcept
{
    // Only the safetensors rows: Quantscope's own I4/U4 are never read from a file header.
    for (int i = 0; i < kSafetensorsDTypeCount; ++i)
        if (kInfo[static_cast<std::size_t>(i)].name == s)
            return kInfo[static_cast<std::size_t>(i)].type;
    return std::nullopt;
}

bool isDecodable(DType t) noexcept
{
    const DTypeInfo *info = infoOf(t);
    return info && info->decodable;
}

bool isFloating(DType t) noexcept
{
    const DTypeInfo *info = infoOf(t);
    return info && info->floating;
}

} // namespace quantscope
