# install + exported targets: another project does find_package(granray) and links
# granray::granray.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS granray EXPORT granrayTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(GRANRAY_BUILD_TOOLS)
  install(TARGETS granray-render RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET granray_mpi)  # granray-render links it; a program of its own may too
  install(TARGETS granray_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
foreach(dir io/include insitu/include insitu/config/include insitu/mpi/include adapters/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/granray DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
# The renderer's public headers, and of the kernels' own (granray/kernels/) only those that the
# public headers include, directly or through each other: the kernels are internal otherwise.
# tests/consumer compiles every installed header, so a header missing here fails that test.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/include/granray
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN kernels EXCLUDE)
set(GRANRAY_PUBLIC_KERNEL_HEADERS camera_frame.h capsule.h contact_capsules.h dda.h grid_view.h
    intersect.h light.h lighting.h
    platform.h ray.h screen_tiles.h shading.h sphere_batch.h trace.h vec.h walls.h)
list(TRANSFORM GRANRAY_PUBLIC_KERNEL_HEADERS
     PREPEND ${PROJECT_SOURCE_DIR}/kernels/include/granray/kernels/)
install(FILES ${GRANRAY_PUBLIC_KERNEL_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/granray/kernels)

install(EXPORT granrayTargets NAMESPACE granray::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/granray)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/granrayConfig.cmake.in
  ${PROJECT_BINARY_DIR}/granrayConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/granray)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/granrayConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/granrayConfig.cmake
              ${PROJECT_BINARY_DIR}/granrayConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/granray)
