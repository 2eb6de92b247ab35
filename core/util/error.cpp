// SPDX-License-Identifier: MIT
#include "util/error.h"

namespace quantscope {

std::string formatLocation(const Location &where, const std::string &message)
{
    std::string out;
    if (!where.file.empty())
        out += where.file + ": ";
    if (!where.tensor.empty())
        out += "tensor '" + where.tensor + "': ";
    if (where.offset)
        out += "byte " + std::to_string(*where.offset) + ": ";
    out += message;
    return out;
}

Error::Error(std::string message, Location where)
    : std::runtime_error(formatLocation(where, message)), m_where(std::move(where)), m_message(std::move(message))
{
}

} // namespace quantscope
