# The poker track (IGE: a custom poker game built in conversation with an LLM, run on a native
# GameBase engine): the shared modules it links.
# cpp-httplib serves `poker serve`'s page and API (poker/session_server.h).
pcglab_module(poker DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report
              PkgConfig::HTTPLIB)
# The default game script (Config, Phase, Flow with the official template's keys, in pcglab's own
# words), embedded at build time (poker/script.h: default_script()).
pcglab_embed_file(pcglab_poker src/poker/data/default_script.json kPokerDefaultScript pcglab::poker)
# The assistant's system prompt (poker/session.h: assistant_system_prompt()), pcglab's own words.
pcglab_embed_file(pcglab_poker src/poker/prompts/assistant.txt kPokerAssistantPrompt pcglab::poker)
# The page of `poker serve` (poker/session_server.h: session_page()), HTML and JS in one file.
pcglab_embed_file(pcglab_poker src/poker/web/session.html kPokerSessionPage pcglab::poker)
# src/poker/python/ is the engine's Python face, no part of the library: GameBase.py and runner.py
# (embedded, preloaded and loaded into sandbox workers by poker/run.h) and the pybind11 extension
# _pcglab_poker (the native showdown GameBase.py calls), built from poker/hand.cc alone into
# <build>/poker_python/, the folder the sandbox binds read-only.
get_target_property(poker_sources pcglab_poker SOURCES)
list(FILTER poker_sources EXCLUDE REGEX "/poker/python/")
set_property(TARGET pcglab_poker PROPERTY SOURCES ${poker_sources})
pybind11_add_module(pcglab_poker_python MODULE ${PROJECT_SOURCE_DIR}/src/poker/python/native_module.cc
                    ${PROJECT_SOURCE_DIR}/src/poker/hand.cc)
set_target_properties(pcglab_poker_python PROPERTIES OUTPUT_NAME _pcglab_poker
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/poker_python)
target_include_directories(pcglab_poker_python PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(pcglab_poker_python PRIVATE ${PCGLAB_WARNINGS})
# The extension loads into /usr/bin/python3, which has no sanitizer runtime: the sanitizer presets'
# flags (toolchain.cmake's add_compile_options/add_link_options) are left out of it, so an ASan
# build's pcglab still runs the native showdown. poker/hand.cc is sanitized in pcglab_poker itself.
foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
  get_target_property(opts pcglab_poker_python ${prop})
  if(opts)
    list(FILTER opts EXCLUDE REGEX "sanitize")
    set_property(TARGET pcglab_poker_python PROPERTY ${prop} ${opts})
  endif()
endforeach()
add_dependencies(pcglab_poker pcglab_poker_python)
target_compile_definitions(pcglab_poker PRIVATE PCGLAB_POKER_PYTHON_DIR="${PROJECT_BINARY_DIR}/poker_python")
pcglab_embed_file(pcglab_poker src/poker/python/GameBase.py kGameBasePy pcglab::poker)
pcglab_embed_file(pcglab_poker src/poker/python/runner.py kPokerRunnerPy pcglab::poker)
# The evaluation's prompts (poker/eval.h), pcglab's own words: the simulated user and the
# interaction-quality judge.
pcglab_embed_file(pcglab_poker src/poker/prompts/interactor.txt kPokerInteractorPrompt pcglab::poker)
pcglab_embed_file(pcglab_poker src/poker/prompts/judge.txt kPokerJudgePrompt pcglab::poker)
# `poker synth` (poker/synth.h): pcglab's own phase variants and preset flows, and its prompts.
pcglab_embed_file(pcglab_poker src/poker/data/variants/phases.json kPokerSynthVariants pcglab::poker)
pcglab_embed_file(pcglab_poker src/poker/prompts/synth_mutate.txt kPokerSynthMutatePrompt pcglab::poker)
pcglab_embed_file(pcglab_poker src/poker/prompts/synth_segment.txt kPokerSynthSegmentPrompt pcglab::poker)
pcglab_embed_file(pcglab_poker src/poker/prompts/synth_complete.txt kPokerSynthCompletePrompt pcglab::poker)
