// Private to the engine: a policy row's prepaid lifecycle rules (PrepaidLifecycle, policy.hpp)
// in the catalog JSON ("prepaid_lifecycle" object, docs/catalog-format.md) and in the database
// (the policy table's prepaid_lifecycle column holds the same object as JSON text).
#pragma once

#include <string>

#include "base/json_fields.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill {

// Reads the object at `value` (pointer/file name it in errors). Throws InputError naming the
// file, the object's pointer and the field.
PrepaidLifecycle read_prepaid_lifecycle(const json_input::json& value, const std::string& pointer,
                                        const std::string& file);
// The rules as a JSON object text (every field written); "" for the defaults with no source,
// which the database stores as NULL.
std::string prepaid_lifecycle_json(const PrepaidLifecycle& rules);
// Reads what prepaid_lifecycle_json wrote. Throws StoreError when it does not parse.
PrepaidLifecycle stored_prepaid_lifecycle(const std::string& text, std::int64_t policy_id);

}  // namespace gpubill
