# pcglab_module(NAME DEPS ...): a static library pcglab_<NAME> from every .cc under src/<NAME>/,
# subfolders included (src/birds/letters/...), except src/<NAME>/torch/: files that include libtorch
# go into the module's libtorch plug-in instead (see src/CMakeLists.txt).
# New files are picked up without editing CMake (CONFIGURE_DEPENDS re-globs at build time).
# SHARED: build a shared library (pcglab_core is shared so that the executable and the
# dlopen()ed libtorch module share one copy of its globals: log level, progress bar).
# pcglab_torch_module(NAME): the libtorch module of src/<NAME>/torch/*.cc, when there are such files:
# libpcglab_<NAME>_torch.so (for nn: libpcglab_torch.so, target pcglab_torch), a MODULE that
# nn/torch_runtime.h opens at run time and whose only exported symbol is its table (nn/torch/abi.h).
# Built before pcglab_<NAME>, so anything linking the module's plain side finds it built.
function(pcglab_torch_module name)
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/torch/*.cc)
  if(NOT srcs)
    return()
  endif()
  if(name STREQUAL "nn")
    set(target pcglab_torch)
  else()
    set(target pcglab_${name}_torch)
  endif()
  add_library(${target} MODULE ${srcs})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated)
  target_compile_options(${target} PRIVATE ${PCGLAB_WARNINGS})
  target_link_libraries(${target} PRIVATE pcglab_core ${TORCH_LIBRARIES})
  if(PCGLAB_TORCH_CUDA)
    # PCGLAB_CUDA_GRAPH: the PPO rollout's evaluation as one CUDA graph (docs/PERFORMANCE.md); a
    # CUDA libtorch's config puts the CUDA runtime's headers on the include path.
    target_compile_definitions(${target} PRIVATE PCGLAB_TORCH_CUDA=1 PCGLAB_CUDA_GRAPH=1)
  endif()
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}
                                             CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  add_dependencies(pcglab_${name} ${target})
  set_property(GLOBAL APPEND PROPERTY PCGLAB_TORCH_MODULES ${name})
endfunction()

function(pcglab_module name)
  cmake_parse_arguments(ARG "SHARED" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "^${PROJECT_SOURCE_DIR}/src/${name}/torch/")
  if(NOT srcs)
    # A module with headers only so far still gets a target, so dependants can name it.
    set(srcs ${PROJECT_SOURCE_DIR}/cmake/empty.cc)
  endif()
  if(ARG_SHARED)
    add_library(pcglab_${name} SHARED ${srcs})
  else()
    add_library(pcglab_${name} STATIC ${srcs})
  endif()
  target_include_directories(pcglab_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated)
  target_compile_options(pcglab_${name} PRIVATE ${PCGLAB_WARNINGS})
  target_link_libraries(pcglab_${name} PUBLIC ${ARG_DEPS})
  pcglab_torch_module(${name})
  set_property(GLOBAL APPEND PROPERTY PCGLAB_MODULES ${name})
endfunction()

# pcglab_add_tracks(): every folder under src/ that is not yet a module is a track; its
# src/<track>/module.cmake declares it (pcglab_module(<track> DEPS ...)). Call after the shared
# modules. PCGLAB_TRACKS (global property) lists them.
function(pcglab_add_tracks)
  get_property(shared GLOBAL PROPERTY PCGLAB_MODULES)
  file(GLOB children CONFIGURE_DEPENDS LIST_DIRECTORIES true RELATIVE ${PROJECT_SOURCE_DIR}/src
       ${PROJECT_SOURCE_DIR}/src/*)
  list(SORT children)
  foreach(track ${children})
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/src/${track} OR track IN_LIST shared)
      continue()
    endif()
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/${track}/module.cmake)
      message(FATAL_ERROR "src/${track}/ is a track without src/${track}/module.cmake: add one that calls "
                          "pcglab_module(${track} DEPS pcglab_core ...) (see src/birds/module.cmake)")
    endif()
    include(${PROJECT_SOURCE_DIR}/src/${track}/module.cmake)
    if(NOT TARGET pcglab_${track})
      message(FATAL_ERROR "src/${track}/module.cmake must call pcglab_module(${track} DEPS ...)")
    endif()
    set_property(GLOBAL APPEND PROPERTY PCGLAB_TRACKS ${track})
  endforeach()
endfunction()

# pcglab_link_whole(TARGET MODULE...): links the modules' libraries into TARGET with every object
# file kept, so the static registrations in files nothing else references (PCGLAB_REGISTER_*,
# core/registry.h) survive the link. A static module's objects are added to TARGET itself (then its
# archive, still linked for its dependencies, has nothing left to give: no duplicates, which
# WHOLE_ARCHIVE gives when CMake repeats an archive on the link line).
function(pcglab_link_whole target)
  foreach(module ${ARGN})
    get_target_property(type pcglab_${module} TYPE)
    target_link_libraries(${target} PRIVATE pcglab_${module})
    if(type STREQUAL "STATIC_LIBRARY")
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:pcglab_${module}>)
    endif()
  endforeach()
endfunction()

# pcglab_tests(AREA DEPS ...): one GoogleTest executable per area and label, linking the module
# pcglab_<AREA> whole (its registrations survive) and DEPS.
# tests/<area>/*_test.cc            -> label unit
# tests/<area>/*_integration_test.cc -> label integration
# tests/<area>/*_slow_test.cc       -> label slow (not built with -DPCGLAB_SLOW_TESTS=OFF: the ASan
#                                     build, which runs unit and integration only)
# COST orders a parallel ctest run that has no timings yet (a clean checkout, as in CI): slow tests
# start first, then integration, then unit, so the longest ones do not start last and run alone.
function(pcglab_tests area)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB all CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${area}/*_test.cc)
  file(GLOB integ CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${area}/*_integration_test.cc)
  file(GLOB slow CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${area}/*_slow_test.cc)
  set(unit ${all})
  if(integ)
    list(REMOVE_ITEM unit ${integ})
  endif()
  if(slow)
    list(REMOVE_ITEM unit ${slow})
  endif()
  foreach(kind unit integ slow)
    if(NOT ${kind} OR (kind STREQUAL "slow" AND NOT PCGLAB_SLOW_TESTS))
      continue()
    endif()
    set(label ${kind})
    set(cost 1)
    if(kind STREQUAL "integ")
      set(label integration)
      set(cost 10)
    elseif(kind STREQUAL "slow")
      set(cost 100)
    endif()
    set(target ${area}_${label}_tests)
    add_executable(${target} ${${kind}})
    target_compile_options(${target} PRIVATE ${PCGLAB_WARNINGS})
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    pcglab_link_whole(${target} ${area})
    target_link_libraries(${target} PRIVATE ${ARG_DEPS} pcglab_testing GTest::gtest_main GTest::gmock)
    add_dependencies(${target} pcglab)
    gtest_discover_tests(${target}
      WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
      PROPERTIES LABELS ${label} COST ${cost}
      DISCOVERY_TIMEOUT 60)
  endforeach()
endfunction()

# pcglab_embed_file(TARGET FILE SYMBOL NAMESPACE): compiles the bytes of FILE (relative to the
# project) into TARGET at build time (cmake/embed_file.cmake): `const unsigned char SYMBOL[]`, NUL
# terminated, and `const unsigned long SYMBOL_size` in NAMESPACE. A changed FILE regenerates the
# .cc on the next build, without reconfiguring. Sources in another language (the sandbox worker's
# Python) stay files of their own, linted and tested as such.
function(pcglab_embed_file target file symbol namespace)
  set(input ${PROJECT_SOURCE_DIR}/${file})
  set(output ${PROJECT_BINARY_DIR}/generated/embedded/${symbol}.cc)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol} -DNAMESPACE=${namespace}
            -DLABEL=${file} -P ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
    COMMENT "Embedding ${file}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
