// The images the Science Birds evaluator saves (BaseSimilarityEvaluator.cs), rendered headless.
//
// OCR image (the classifier's input): 1024×1024, white, every block drawn pure black at its OCR
// sprite size (slightly larger than its collider), framed as the evaluator frames it: the union of
// the blocks' collider bounding boxes is fitted into an 824×824 orthographic view (the longer side
// fills it, the shorter is centred), which is pasted at (100, 100). Sprites reaching past the view
// are clipped, as in the evaluator's render texture. Edges are anti-aliased by pixel coverage (the
// evaluator's bilinear filtering). A level with no blocks gives a white image.
#pragma once

#include "birds/level.h"
#include "core/image.h"

namespace pcglab::birds {

struct CaptureOptions {
  int size = 1024;   // output image size
  int margin = 100;  // white border; the view is size - 2 * margin
};

// The framing: world box [min_x, max_x] × [min_y, max_y] of the blocks' colliders.
struct Frame {
  double min_x = -10, max_x = 10, min_y = -10, max_y = 10;  // the evaluator's ±10 box when empty
  bool empty = true;
};
Frame frame_of(const Level& level);

// 1 channel (grey): 255 white, 0 black. Pass the level after the simulation.
Image render_ocr_image(const Level& level, const CaptureOptions& options = {});

// A colour view for reports (RGB): sky, the ground below y = -3.5, blocks by material (wood,
// stone, ice), pigs, TNT and platforms, framed on all of them (the OCR image frames the blocks).
Image render_colour_image(const Level& level, const CaptureOptions& options = {});

}  // namespace pcglab::birds
