# The compile settings every part of libgranray is built with, as one interface target that each
# layer's library links privately. They were one target's settings before the layers had
# libraries of their own; keeping them whole keeps the objects, and so the images, unchanged.
add_library(granray_build_options INTERFACE)
target_include_directories(granray_build_options SYSTEM INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:${GRANRAY_THRUST_INCLUDE_DIR}>
  ${GRANRAY_TOMLPP_INCLUDE_DIR} ${GRANRAY_STB_INCLUDE_DIR} ${GRANRAY_FMT_INCLUDE_DIR})
target_compile_definitions(granray_build_options INTERFACE
  FMT_HEADER_ONLY
  GRANRAY_DEFAULT_FONT="${GRANRAY_FONT_FILE}"
  $<$<COMPILE_LANGUAGE:CXX>:THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP>
  GRANRAY_VERSION="${PROJECT_VERSION}"
  $<$<BOOL:${GRANRAY_HAVE_CUDA}>:GRANRAY_HAVE_CUDA>)
target_compile_options(granray_build_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
  # sqrtf without errno: the CPU then tests several occlusion rays at once (same results).
  $<$<COMPILE_LANGUAGE:CXX>:-fno-math-errno>
  # No FMA contraction: both backends then round the ray and sphere arithmetic alike.
  $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>
  # Host loops of the CUDA backend (copying downloads out of pinned staging) use OpenMP too.
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp>)
target_link_libraries(granray_build_options INTERFACE OpenMP::OpenMP_CXX)

# A layer of libgranray: an object library whose objects the shared library collects, with the
# layer's public headers in DIR/include and its private ones in DIR/src.
function(granray_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;USES")
  add_library(${name} OBJECT ${arg_SOURCES})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${arg_USES} PRIVATE granray_build_options)
endfunction()
