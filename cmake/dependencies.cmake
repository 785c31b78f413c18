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

# libtorch (CPU). Debian installs its CMake config under the multiarch lib dir.
find_package(Torch REQUIRED)

if(PCGLAB_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(PCGLAB_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
