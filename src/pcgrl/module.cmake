# The pcgrl track (PCGRLLM dungeons, PPO): the shared modules it links.
pcglab_module(pcgrl DEPS pcglab_core pcglab_batch pcglab_nn pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# The jax stand-in for LLM-written rewards (Python) is embedded as a string: see pcgrl/jax_standin.h.
# file(WRITE) of the read text leaves '@', '${' and ';' in it alone; COPYONLY touches the header only
# when the source changed.
set(jax_standin_py ${PROJECT_SOURCE_DIR}/src/pcgrl/python/jax_standin.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${jax_standin_py})
file(READ ${jax_standin_py} jax_standin_text)
file(WRITE ${PROJECT_BINARY_DIR}/generated/pcgrl/jax_standin_source.h.tmp
     "// Generated from src/pcgrl/python/jax_standin.py by src/pcgrl/module.cmake: do not edit.\n#pragma once\n"
     "namespace pcglab::pcgrl {\ninline constexpr const char* kJaxStandinSource = R\"pcglab_py(${jax_standin_text})pcglab_py\";\n}\n")
configure_file(${PROJECT_BINARY_DIR}/generated/pcgrl/jax_standin_source.h.tmp
               ${PROJECT_BINARY_DIR}/generated/pcgrl/jax_standin_source.h COPYONLY)
# PCGRLLM's prompt templates (src/pcgrl/prompts/, the official folder's layout) are embedded the same
# way: one table, file name → text (pcgrl/reward_llm.h, PromptSet::builtin). The list is the layout's
# order (prompt_file_names()); a changed or added file reconfigures.
set(pcgrl_prompt_files
    system.txt jax_code_tips.txt reward_code_tips.txt initial_user.txt task.txt reward_function_inputs.txt
    feature/array.txt feature/stats.txt compute_reward_example.py pe/io.txt pe/cot.txt pe/got.txt
    alignment_user.txt feedback_system.txt feedback_user.txt evaluation/llm_evaluation.txt)
set(pcgrl_prompts_text "// Generated from src/pcgrl/prompts/ by src/pcgrl/module.cmake: do not edit.\n#pragma once\n"
                       "namespace pcglab::pcgrl {\nstruct EmbeddedPrompt {\n  const char* name;\n  const char* text;\n};\n"
                       "inline constexpr EmbeddedPrompt kEmbeddedPrompts[] = {\n")
foreach(prompt_file ${pcgrl_prompt_files})
  set(prompt_path ${PROJECT_SOURCE_DIR}/src/pcgrl/prompts/${prompt_file})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${prompt_path})
  file(READ ${prompt_path} prompt_text)
  string(APPEND pcgrl_prompts_text "    {\"${prompt_file}\", R\"pcglab_prompt(${prompt_text})pcglab_prompt\"},\n")
endforeach()
string(APPEND pcgrl_prompts_text "};\n}  // namespace pcglab::pcgrl\n")
file(WRITE ${PROJECT_BINARY_DIR}/generated/pcgrl/prompt_files.h.tmp "${pcgrl_prompts_text}")
configure_file(${PROJECT_BINARY_DIR}/generated/pcgrl/prompt_files.h.tmp
               ${PROJECT_BINARY_DIR}/generated/pcgrl/prompt_files.h COPYONLY)
