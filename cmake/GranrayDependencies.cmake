# Finds what granray builds against. CUDA is optional: without nvcc only the CPU backend is built.
include(CheckLanguage)

# The compute capabilities of the GPUs nvidia-smi lists (9.0 -> 90), deduplicated; empty when
# there is no driver or no GPU.
function(granray_gpu_architectures out)
  set(archs)
  find_program(_granray_nvidia_smi nvidia-smi)
  if(_granray_nvidia_smi)
    execute_process(COMMAND ${_granray_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        if(cap MATCHES "^ *([0-9]+)\\.([0-9]+) *$")
          list(APPEND archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

set(GRANRAY_HAVE_CUDA OFF)
if(GRANRAY_ENABLE_CUDA)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # The GPUs of this machine when it has any; else one architecture (sm_80 code, plus its PTX
      # that newer GPUs compile when they load it). Each architecture is a whole device compile of
      # the backend, minutes apiece: three made the build of a machine without a GPU (CI's)
      # three times longer and ran nowhere.
      granray_gpu_architectures(_granray_gpu_archs)
      if(_granray_gpu_archs)
        set(CMAKE_CUDA_ARCHITECTURES ${_granray_gpu_archs})
        message(STATUS "granray: CUDA for this machine's GPUs: ${_granray_gpu_archs}")
      else()
        set(CMAKE_CUDA_ARCHITECTURES 80)
        message(STATUS "granray: no GPU seen here, CUDA for sm_80 and its PTX "
                       "(set CMAKE_CUDA_ARCHITECTURES for the GPUs the build will run on)")
      endif()
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
