# `cmake --install <build> --prefix P`: the kernbench executable, its default
# config files, the kernel API headers and a CMake package for kernel
# libraries (docs/kernels.md "Your own kernels"):
#
#   P/bin/kernbench
#   P/share/kernbench/config/*.yaml          found by the installed binary
#   P/share/kernbench/plot_sweep.py, trace_timeline.py, kbplot/  the plot scripts and their package
#   P/share/kernbench/check_trace.py  checks a Chrome/Perfetto trace as Perfetto reads it
#   P/share/kernbench/schema/results.schema.json   the `run --json` contract
#   P/include/kernbench/kernels/tl.hpp ...   `#include "kernels/tl.hpp"`
#   P/lib/cmake/kernbench/                   find_package(kernbench)
include(CMakePackageConfigHelpers)

# The headers a kernel includes: kernels/tl.hpp, kernels/registry.hpp and
# the argument types they own, all in kernels/ (no runtime/ header: the
# kernel API is the layer 0 row of docs/architecture.md "Layers", which
# scripts/check_layers.py holds it to). They need only the standard library
# (no Eigen, Cap'n Proto, CAF or fmt); tests/cli/user_kernel_test.cpp
# compiles them from the install prefix alone.
set(kb_kernel_api_headers
  kernels/command_args.hpp
  kernels/dtype.hpp
  kernels/math_fn.hpp
  kernels/math_op.hpp
  kernels/program.hpp
  kernels/registry.hpp
  kernels/tensor_view.hpp
  kernels/tl.hpp
)
set(kb_include_dir ${CMAKE_INSTALL_INCLUDEDIR}/kernbench)
set(kb_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kernbench)

foreach(h IN LISTS kb_kernel_api_headers)
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${h} DESTINATION ${kb_include_dir}/${dir})
endforeach()

# kb_kernel_api (kernels/CMakeLists.txt) becomes kernbench::kernel_api.
target_include_directories(kb_kernel_api INTERFACE $<INSTALL_INTERFACE:${kb_include_dir}>)
install(TARGETS kernbench kb_kernel_api EXPORT kernbenchTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT kernbenchTargets NAMESPACE kernbench:: DESTINATION ${kb_package_dir})

install(DIRECTORY config/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kernbench/config
  FILES_MATCHING PATTERN "*.yaml")
install(PROGRAMS scripts/plot_sweep.py DESTINATION ${CMAKE_INSTALL_DATADIR}/kernbench)
install(FILES schema/results.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/kernbench/schema)
install(PROGRAMS scripts/trace_timeline.py scripts/check_trace.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kernbench)
install(DIRECTORY scripts/kbplot DESTINATION ${CMAKE_INSTALL_DATADIR}/kernbench
  FILES_MATCHING PATTERN "*.py")

configure_package_config_file(cmake/kernbenchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kernbenchConfig.cmake
  INSTALL_DESTINATION ${kb_package_dir})
# 0.x: a minor version may change the kernel API (kernels/registry.hpp
# kernel_abi_version is checked again when a library is loaded).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kernbenchConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/kernbenchConfig.cmake
  ${PROJECT_BINARY_DIR}/kernbenchConfigVersion.cmake
  cmake/kernbench_kernel_abi.cpp
  DESTINATION ${kb_package_dir})
