# Finds what granray builds against. CUDA is optional: without nvcc only the CPU backend is built.
include(CheckLanguage)

set(GRANRAY_HAVE_CUDA OFF)
if(GRANRAY_ENABLE_CUDA)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75 80 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(GRANRAY_HAVE_CUDA ON)
  else()
    message(STATUS "granray: no CUDA compiler found, building the CPU backend only")
  endif()
endif()

find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PNG REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(Threads REQUIRED)

# Thrust for the host compiler: CUDA's CCCL when a toolkit is installed, else Debian's
# libthrust-dev. nvcc finds its own copy.
set(_granray_thrust_hints)
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    list(APPEND _granray_thrust_hints ${dir}/cccl)
  endforeach()
endif()
find_path(GRANRAY_THRUST_INCLUDE_DIR thrust/version.h
          HINTS ${_granray_thrust_hints} /usr/local/cuda/include/cccl
          PATHS /usr/include)
if(NOT GRANRAY_THRUST_INCLUDE_DIR)
  message(FATAL_ERROR "granray: Thrust not found (install libthrust-dev or the CUDA toolkit)")
endif()
message(STATUS "granray: Thrust for the CPU backend from ${GRANRAY_THRUST_INCLUDE_DIR}")

# Header-only libraries: Debian's packages, or a prefix given in GRANRAY_EXTRA_INCLUDE_DIR.
find_path(GRANRAY_TOMLPP_INCLUDE_DIR toml++/toml.h HINTS ${GRANRAY_EXTRA_INCLUDE_DIR})
find_path(GRANRAY_CLI11_INCLUDE_DIR CLI/CLI.hpp HINTS ${GRANRAY_EXTRA_INCLUDE_DIR})
if(NOT GRANRAY_TOMLPP_INCLUDE_DIR)
  message(FATAL_ERROR "granray: toml++ not found (install libtomlplusplus-dev)")
endif()
if(GRANRAY_BUILD_TOOLS AND NOT GRANRAY_CLI11_INCLUDE_DIR)
  message(FATAL_ERROR "granray: CLI11 not found (install libcli11-dev)")
endif()

# Overlays (colour bar, label): stb_truetype (Debian libstb-dev) rasterises DejaVu Sans
# (fonts-dejavu-core), fmt (libfmt-dev, used header-only) formats the label.
find_path(GRANRAY_STB_INCLUDE_DIR stb_truetype.h HINTS ${GRANRAY_EXTRA_INCLUDE_DIR}
          PATH_SUFFIXES stb)
find_path(GRANRAY_FMT_INCLUDE_DIR fmt/format.h HINTS ${GRANRAY_EXTRA_INCLUDE_DIR})
find_file(GRANRAY_FONT_FILE DejaVuSans.ttf
          HINTS ${GRANRAY_EXTRA_INCLUDE_DIR}/../fonts /usr/share/fonts/truetype/dejavu
          NO_DEFAULT_PATH)
if(NOT GRANRAY_STB_INCLUDE_DIR)
  message(FATAL_ERROR "granray: stb_truetype.h not found (install libstb-dev)")
endif()
if(NOT GRANRAY_FMT_INCLUDE_DIR)
  message(FATAL_ERROR "granray: fmt not found (install libfmt-dev)")
endif()
if(NOT GRANRAY_FONT_FILE)
  message(WARNING "granray: DejaVuSans.ttf not found (install fonts-dejavu-core): frames get "
                  "no colour bar or label unless GRANRAY_FONT names a TrueType font")
  set(GRANRAY_FONT_FILE "")
endif()

# MPI is optional: with it, granray_mpi composites frames rendered on many ranks.
find_package(MPI COMPONENTS CXX)
