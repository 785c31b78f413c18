# Every dependency comes from Debian 12 packages installed by scripts/install-deps.sh.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(pugixml REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(box2d REQUIRED)
find_package(PNG REQUIRED)
find_package(Freetype REQUIRED)
find_package(yaml-cpp REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)

# pybind11 must use the system interpreter: the pyenv python on PATH has no numpy.
set(PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for pybind11" FORCE)
set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for pybind11" FORCE)
find_package(pybind11 REQUIRED)

# libtorch: Debian's (CPU only; its CMake config is under the multiarch lib dir), or with
# PCGLAB_TORCH_PREFIX another one (a PyTorch installation's, with CUDA: docs/nn.md). Only the
# libtorch modules (libpcglab_*torch.so) link it.
set(PCGLAB_TORCH_PREFIX "" CACHE PATH
    "Build the libtorch modules against the libtorch whose CMake config is under this prefix, e.g. \
the output of python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' (empty: Debian's)")
# A changed prefix forgets the libtorch found before (find_package keeps its folders in the cache).
if(NOT "${PCGLAB_TORCH_PREFIX}" STREQUAL "${PCGLAB_TORCH_PREFIX_USED}")
  unset(Torch_DIR CACHE)
  unset(Caffe2_DIR CACHE)
  unset(TORCH_LIBRARY CACHE)
  unset(C10_CUDA_LIBRARY CACHE)
  unset(CAFFE2_NVRTC_LIBRARY CACHE)
  unset(LIBNVTOOLSEXT CACHE)
  set(PCGLAB_TORCH_PREFIX_USED "${PCGLAB_TORCH_PREFIX}" CACHE INTERNAL "")
endif()
if(PCGLAB_TORCH_PREFIX)
  find_package(Torch PATHS ${PCGLAB_TORCH_PREFIX} NO_DEFAULT_PATH)
  if(NOT Torch_FOUND)
    message(FATAL_ERROR "PCGLAB_TORCH_PREFIX=${PCGLAB_TORCH_PREFIX}: no TorchConfig.cmake under it (expected "
                        "<prefix>/Torch/ or <prefix>/share/cmake/Torch/; python3 -c 'import torch; "
                        "print(torch.utils.cmake_prefix_path)' prints a PyTorch installation's)")
  endif()
  # pcglab's own libraries use the C++11 string ABI: a libtorch built with the old one (PyTorch
  # wheels before 2.7, libtorch "pre-cxx11" zips) cannot share them.
  if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR "PCGLAB_TORCH_PREFIX=${PCGLAB_TORCH_PREFIX}: this libtorch uses the pre-C++11 "
                        "string ABI (${TORCH_CXX_FLAGS}); use one built with the C++11 ABI (PyTorch >= 2.7 "
                        "wheels, or the cxx11-abi libtorch download)")
  endif()
else()
  find_package(Torch REQUIRED)
endif()
# CUDA support of that libtorch: the modules then accept `--device cuda`.
if(TORCH_CUDA_LIBRARIES)
  set(PCGLAB_TORCH_CUDA ON)
else()
  set(PCGLAB_TORCH_CUDA OFF)
endif()
message(STATUS "libtorch for the modules: ${Torch_DIR} (CUDA: ${PCGLAB_TORCH_CUDA})")

if(PCGLAB_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(PCGLAB_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
