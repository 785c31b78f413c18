# Compiler, linker and cache settings shared by every target.
find_program(PCGLAB_CCACHE ccache)
if(PCGLAB_CCACHE)
  # base_dir makes hits work across build folders of the same depth (build/release, build/debug).
  set(CMAKE_CXX_COMPILER_LAUNCHER env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${PCGLAB_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${PCGLAB_CCACHE})
endif()

# GNU ld (the default), not lld: GCC at -O2 and above gives an empty hot/cold `.cold` part a
# zero-length FDE, and Debian's lld 14 can put that FDE in .eh_frame_hdr's lookup table in place
# of the real FDE of the function at the same address; an exception thrown through that function
# then finds no unwind entry and calls std::terminate (it aborted `pcgrl train --reward FILE` with
# a reward that does not load). GNU ld leaves zero-length FDEs out of the table.
# tests/core/unwind_table_integration_test.cc fails on a binary with such an entry.

# Warnings apply to pcglab's own targets only (see pcglab_module.cmake), never to system headers.
set(PCGLAB_WARNINGS -Wall -Wextra -Wpedantic)
if(PCGLAB_WERROR)
  list(APPEND PCGLAB_WARNINGS -Werror)
endif()

option(PCGLAB_TSAN "Build with ThreadSanitizer (the tsan preset)" OFF)
if(PCGLAB_SANITIZE AND PCGLAB_TSAN)
  message(FATAL_ERROR "PCGLAB_SANITIZE (ASan) and PCGLAB_TSAN cannot be combined")
endif()
# float-cast-overflow (a double beyond the integer's range converted to it) is not part of GCC's
# -fsanitize=undefined: it is named here so that input values reaching such a cast are caught.
if(PCGLAB_SANITIZE)
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined,float-cast-overflow)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
  # Executables are linked without PIE: UBSan's source locations and ASan's global descriptors give
  # a PIE pcglab 3.7 million relative relocations (88 MB), which the loader writes into 100 MB of
  # data pages at every start. Without PIE the linker resolves them: a start (`pcglab --version`)
  # takes 0.28 s instead of 0.47 s, and the ASan tests start pcglab and a test program thousands of
  # times. Shared libraries and modules stay position independent.
  add_link_options("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>")
endif()
# ThreadSanitizer (the `tsan` preset, scripts/tsan.sh).
if(PCGLAB_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
