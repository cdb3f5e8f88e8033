# The embedded server as a package for C++ test suites: one static archive of warden's own code
# (libwarden-embedded.a), its header as warden/embedded_server.h, a CMake package (warden::embedded)
# and a pkg-config file, both naming the libraries the archive needs.
set(WARDEN_EMBEDDED_OBJECTS $<TARGET_OBJECTS:warden_embedded> $<TARGET_OBJECTS:warden_server>
  $<TARGET_OBJECTS:warden_storage> $<TARGET_OBJECTS:warden_protocol>)
if(TARGET warden_lzf)
  list(APPEND WARDEN_EMBEDDED_OBJECTS $<TARGET_OBJECTS:warden_lzf>)
endif()
add_library(warden_embedded_archive STATIC ${WARDEN_EMBEDDED_OBJECTS})
set_target_properties(warden_embedded_archive PROPERTIES OUTPUT_NAME warden-embedded
  LINKER_LANGUAGE CXX)

# What the archive calls: the archives warden_deps links when WARDEN_DEPS_STATIC, else the shared
# libraries pkg-config found; LZF when it was not compiled in. Absolute paths, as CMake and
# pkg-config both take them.
if(WARDEN_DEPS_STATIC)
  set(WARDEN_EMBEDDED_LINK ${WARDEN_CJSON_A} ${WARDEN_BITOP_A} ${WARDEN_LUA_A} ${WARDEN_UV_A}
    ${WARDEN_XXHASH_A})
else()
  set(WARDEN_EMBEDDED_LINK ${LUA_CJSON_LINK_LIBRARIES} ${LUA_BITOP_LINK_LIBRARIES}
    ${LUA_LINK_LIBRARIES} ${LIBUV_LINK_LIBRARIES} ${XXHASH_LINK_LIBRARIES})
endif()
if(NOT TARGET warden_lzf)
  list(APPEND WARDEN_EMBEDDED_LINK ${LZF_LINK_LIBRARIES})
endif()
list(JOIN WARDEN_EMBEDDED_LINK " " WARDEN_EMBEDDED_PC_LIBS)
# The Debian packages that hold those libraries (their archives, or the .so links to link with).
set(WARDEN_EMBEDDED_DEB_DEPENDS
  "libstdc++-12-dev, libuv1-dev, liblua5.1-0-dev, lua-cjson-dev, lua-bitop-dev, libxxhash-dev")
if(NOT TARGET warden_lzf)
  string(APPEND WARDEN_EMBEDDED_DEB_DEPENDS ", liblzf-dev")
endif()

set(WARDEN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/warden)
# From the config's and the .pc's folders back to the prefix, so that an install that is moved
# (DESTDIR, a copied tree) still finds its files.
file(RELATIVE_PATH WARDEN_CONFIG_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${WARDEN_CMAKE_DIR}
  ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH WARDEN_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig
  ${CMAKE_INSTALL_PREFIX})
configure_file(embedded/wardenConfig.cmake.in wardenConfig.cmake @ONLY)
configure_file(embedded/warden-embedded.pc.in warden-embedded.pc @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(wardenConfigVersion.cmake COMPATIBILITY SameMinorVersion)

install(TARGETS warden_embedded_archive ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/server/embedded_server.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warden COMPONENT dev)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wardenConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/wardenConfigVersion.cmake DESTINATION ${WARDEN_CMAKE_DIR}
  COMPONENT dev)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warden-embedded.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
