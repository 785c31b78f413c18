// Helpers shared by the chat client's tests.
#pragma once

#include <string>

#include "core/check.h"
#include "llm/chat_client.h"

namespace pcglab::llm::testing {

// The SetupError a client with `config` is refused with, or "(accepted)".
inline std::string setup_error(const ClientConfig& config) {
  try {
    ChatClient client(config);
  } catch (const SetupError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace pcglab::llm::testing
