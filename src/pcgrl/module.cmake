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
