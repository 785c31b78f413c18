# Compiler, linker and cache settings shared by every target.
find_program(PCGLAB_CCACHE ccache)
if(PCGLAB_CCACHE)
  # base_dir makes hits work across build folders of the same depth (build/release, build/debug).
  set(CMAKE_CXX_COMPILER_LAUNCHER env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${PCGLAB_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${PCGLAB_CCACHE})
endif()

find_program(PCGLAB_LLD ld.lld)
if(PCGLAB_LLD)
  add_link_options(-fuse-ld=lld)
endif()

# Warnings apply to pcglab's own targets only (see pcglab_module.cmake), never to system headers.
set(PCGLAB_WARNINGS -Wall -Wextra -Wpedantic)
if(PCGLAB_WERROR)
  list(APPEND PCGLAB_WARNINGS -Werror)
endif()

if(PCGLAB_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
