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
foreach(dir kernels/include io/include insitu/include insitu/config/include insitu/mpi/include
            adapters/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/granray DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

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
