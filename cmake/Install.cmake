# `cmake --install` and the Debian package (docs/install.md). Everything goes under FHS paths
# relative to CMAKE_INSTALL_PREFIX (the package uses /usr):
#   bin/rdmatop
#   share/man/man1/rdmatop.1.gz, rdmatop-SUB.1.gz        (help2man, cmake/GenerateDist.cmake)
#   share/bash-completion/completions/rdmatop             (bash-completion's directory)
#   share/zsh/vendor-completions/_rdmatop                 (Debian's zsh vendor directory)
#   share/rdmatop/rules/rdmatop-rules.yaml                (`rdmatop rules export`)
#   share/rdmatop/{prometheus,grafana,kubernetes}/...     (deploy/)
#   lib/systemd/system/rdmatop-exporter.service           (ExecStart = the installed binary)
#   share/doc/rdmatop/                                    (README, docs/, LICENSE, NOTICE)
#   share/doc/rdmatop/runbooks/                           (docs/runbooks/: the alerts' runbook_url)
include(GNUInstallDirs)

find_program(HELP2MAN_PROGRAM help2man)
set(_dist ${CMAKE_BINARY_DIR}/dist)
add_custom_command(
  OUTPUT ${_dist}/stamp
  COMMAND ${CMAKE_COMMAND} -DRDMATOP=$<TARGET_FILE:rdmatop> -DOUT=${_dist}
          -DVERSION=${PROJECT_VERSION} -DHELP2MAN=${HELP2MAN_PROGRAM} -DSTAMP=${_dist}/stamp
          -P ${PROJECT_SOURCE_DIR}/cmake/GenerateDist.cmake
  DEPENDS rdmatop ${PROJECT_SOURCE_DIR}/cmake/GenerateDist.cmake
  COMMENT "Generating man pages, shell completion and the exported rules"
  VERBATIM)
add_custom_target(rdmatop_dist ALL DEPENDS ${_dist}/stamp)

# The unit names the installed binary: deploy/ spells /usr/bin/rdmatop (the package's path).
# Rewritten at install time, when CMAKE_INSTALL_PREFIX is the real one (cpack installs with
# CPACK_PACKAGING_INSTALL_PREFIX, /usr; `cmake --install --prefix P` with P).
set(_unit_src ${PROJECT_SOURCE_DIR}/deploy/systemd/rdmatop-exporter.service)
set(_unit_out ${_dist}/systemd/rdmatop-exporter.service)
install(CODE "
  file(READ \"${_unit_src}\" unit)
  string(REPLACE \"/usr/bin/rdmatop\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/rdmatop\"
         unit \"\${unit}\")
  string(REPLACE \"/usr/share/doc/rdmatop\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\"
         unit \"\${unit}\")
  file(WRITE \"${_unit_out}\" \"\${unit}\")
")

install(TARGETS rdmatop RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${_dist}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${_dist}/completion/rdmatop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${_dist}/completion/_rdmatop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${_dist}/rules/rdmatop-rules.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmatop/rules)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/rdmatop-alerts.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmatop/prometheus)
# The fleet rules run only in Prometheus, next to the exported pack (docs/rules.md).
install(FILES ${PROJECT_SOURCE_DIR}/rules/fleet/fleet.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmatop/prometheus RENAME rdmatop-fleet-alerts.yaml)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/grafana/rdmatop-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmatop/grafana)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/kubernetes/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmatop/kubernetes)
# systemd.unit(5): units shipped by packages live in /usr/lib/systemd/system (Debian 12 is
# merged-/usr, so /lib/systemd/system is the same directory).
install(FILES ${_dist}/systemd/rdmatop-exporter.service DESTINATION lib/systemd/system)
install(FILES README.md LICENSE NOTICE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB _docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The runbook pages the exported alerts' runbook_url annotations point at (default
# `rdmatop rules export --runbook-base file:///usr/share/doc/rdmatop/runbooks/`).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/runbooks/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/runbooks
        FILES_MATCHING PATTERN "*.md")

# The .deb: `cpack --config build/CPackConfig.cmake` (or `cmake --build build --target package`).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rdmatop)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The rdmatop authors")
set(CPACK_PACKAGE_CONTACT "rdmatop maintainers <rdmatop@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "RoCEv2 (RDMA over Ethernet) health monitoring and diagnostics")
set(CPACK_PACKAGE_DESCRIPTION
    "rdmatop gathers RDMA sysfs and netlink counters, ethtool statistics, devlink, DCB and procfs \
state into one canonical snapshot per tick, computes rates and evaluates Prometheus-format \
rules into findings. It ships a terminal UI, a one-shot report, a Prometheus exporter with \
alert rules and a Grafana dashboard, recording and replay, active RC probes and a fault \
simulator.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_LICENSE Apache-2.0)
# Depends: computed by dpkg-shlibdeps(1) from the binary's DT_NEEDED libraries, i.e. exactly the
# Debian 12 runtime packages it links (libibverbs1, librdmacm1, libmnl0, libarchive13,
# libprometheus-cpp-core1.0, libyaml-cpp0.7, libfmt9, libncursesw6, libssl3, zlib1g,
# libisal2, libcrypt1, libc6, ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The RDMA userspace drivers (providers) are loaded by libibverbs at run time, not linked.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, bash-completion")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
    ${PROJECT_SOURCE_DIR}/packaging/debian/prerm ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
