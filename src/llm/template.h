// Named placeholders in prompt text, filled in by the caller: "Fix the reward: {{verdict}}".
//
// A placeholder is `{{name}}` (spaces inside the braces allowed: `{{ name }}`), name = a letter or
// '_' followed by letters, digits, '_', '.' or '-'. Anything else between braces, such as a
// Python dict in a code sample (`{{'a': 1}}`), is text and is left as it is.
//
// Rendering is strict both ways, because a silent mistake costs a whole batch of paid requests
// with a wrong prompt: a placeholder with no value is an error, and so is a value whose
// placeholder the text does not contain (e.g. a feedback template that forgot {{verdict}} would
// drop the evaluator's verdict). Errors are SetupError naming the template's source and, for a
// placeholder, its line, and listing the names the other side has.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pcglab::llm {

// The placeholder names in `text`, each once, in order of first appearance.
std::vector<std::string> template_placeholders(std::string_view text);

// Checks that `text` holds exactly the placeholders `names` (each value has its place, and no name
// would be left without a value): a SetupError naming `source`, the names found and the names
// needed. For templates loaded up front (a prompt folder), so a wrong file stops the run before
// its first request.
void require_placeholders(std::string_view text, const std::vector<std::string>& names,
                          std::string_view source);

// `text` with every placeholder replaced by its value (values are inserted as they are, never
// rendered again). `source` names the template in errors ("prompts/refine.txt", "feedback").
std::string render_template(std::string_view text, const std::map<std::string, std::string>& values,
                            std::string_view source = "template");

}  // namespace pcglab::llm
