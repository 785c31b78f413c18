// The wire format between pcglab and a sandbox worker (its Python side is src/sandbox/python/worker.py).
//
// The protocol runs on its own file descriptors (3: requests into the worker, 4: replies out), never
// on stdin/stdout, so whatever the generated code prints cannot be mistaken for a reply. Each
// message is a 16-byte header {u32 magic "PCGW", u8 op or status, 3 zero bytes, u64 payload size}
// and one encoded Value. A value is a tag byte and its contents, little-endian:
//   'N' None  'T' True  'F' False  'i' int64  'f' float64  's' u64 size + UTF-8
//   'l' u32 count + values  'd' u32 count + (str key, value) pairs
//   'a' u8 dtype size + dtype + u8 ndim + ndim x i64 shape + u64 size + zero padding to a multiple
//       of 8 (from the payload's start, so the worker's numpy views are aligned) + raw data
// Requests: init [preload [[name, source]...], settings {}], load [filename, source],
// call [function, args list, kwargs dict], map [function, [args list...]], and map-stacked
// [function, [array...]] where array j stacks argument j of every call along a new first axis
// (a batch of same-shaped arrays is decoded as a few arrays, not thousands).
// Replies: ok [result, output] or error [cause, message, traceback, output].
//
// The decoder treats every reply as hostile (the worker runs the generated code in its own
// process, so the code can write anything to fd 4): sizes are checked against what is left,
// nesting is bounded, dtypes and shapes must agree with the data, and any violation is a
// ProtocolError, after which the worker is killed. A decoded reply is a DecodedValue: the reply's
// bytes plus 4 bytes per value (decoded_value.h), so host memory stays within about 5 times the
// reply limit whatever the reply holds.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/decoded_value.h"
#include "sandbox/value.h"

namespace pcglab::sandbox {

inline constexpr uint32_t kMagic = 0x57474350;  // "PCGW"
inline constexpr size_t kHeaderSize = 16;
inline constexpr int kMaxDepth = 100;

enum class Op : uint8_t { kInit = 1, kLoad = 2, kCall = 3, kMap = 4, kMapStacked = 5 };
// Requests to a zygote (sandbox/zygote.h) on its control socket: run the preload once; fork a
// worker (the limits as a dict, three descriptors attached: protocol socket, status socket, error pipe).
enum class ZygoteOp : uint8_t { kInit = 16, kFork = 17 };
enum class ReplyStatus : uint8_t { kOk = 0, kError = 1 };

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FrameHeader {
  uint8_t code = 0;  // an Op (requests) or a ReplyStatus (replies)
  uint64_t size = 0;
};

// A whole message: header and encoded value.
std::string encode_frame(uint8_t code, const Value& value);
// The call request [function, args, kwargs], the same bytes as encode_frame(kCall, List{...}),
// without copying the arguments into one Value or the payload into the frame.
std::string encode_call_frame(const std::string& function, const List& args, const Dict& kwargs);
// The map request [function, [args...]] without copying the argument lists into one Value.
std::string encode_map_frame(const std::string& function, const std::vector<List>& arg_lists);
// Appends the encoding of `value` (positions for array padding count from the start of `out`,
// which must be the start of the payload).
void encode_value(const Value& value, std::string& out);
// Parses a header; throws ProtocolError for a wrong magic or nonzero padding.
FrameHeader decode_header(const char* bytes);
// Decodes one payload that must hold exactly one value, in time linear in its size (sorting a
// dict's keys to refuse duplicates is n log n), into a compact DecodedValue that keeps `payload`.
DecodedValue decode_payload(std::string payload);

}  // namespace pcglab::sandbox
