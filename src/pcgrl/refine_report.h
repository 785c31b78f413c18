// `pcglab pcgrl report DIR`: one self-contained HTML page of a `pcgrl refine` folder (pcgrllm.h
// gives the layout). It reads only the folder's files (graph.json, settings.json, nodes/NNNN/), so
// it works on a finished run, a run still going (graph.json is rewritten after every step) and a
// copied folder, and never needs the LLM, the sandbox or libtorch.
//
// The page: the settings; the accuracy of each iteration as a bar chart; the thought graph as SVG
// (one circle per node with its id and fitness, a line to its parent, GoT's auxiliary context as
// dashed lines, failed nodes in red); then per node its reward code with a line diff to its
// parent's, self-alignment's changes to the generated code, the alignment statistics of each round, the
// levels as pictures, the feedback, and the error of a failed node.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pcglab::pcgrl {

// A line diff of `before` to `after` (longest common subsequence of lines): each line of the
// result is "  line" (kept), "- line" (only in before) or "+ line" (only in after).
std::vector<std::string> line_diff(const std::string& before, const std::string& after);

// The page for the refine folder `dir`. Throws InputError naming the file when graph.json is
// missing or malformed; a node's missing files are shown as absent, never an error.
std::string refine_report_html(const std::filesystem::path& dir);

}  // namespace pcglab::pcgrl
