# kgate_add_kernels(<target> SOURCES <.cu...> REGISTRY <file.def>
#                   [NAME <module name>] [VERSION <text>])
#
# Builds <target>, a MODULE library that `kgate --kernels` loads: the sources,
# plus one generated file that includes kgate/registry.h over the registry,
# with the flags every kgate kernel module needs:
#   - the shared CUDA runtime (one runtime in the worker for kgate and every
#     module it loads: streams and device pointers cross between them),
#   - hidden visibility and a version script: only kgate_module_abi,
#     kgate_module and kgate_module_toolchain are exported, so modules of two
#     commits load side by side,
#   - KGATE_FLAGS_HASH, the SHA-256 of the CUDA flags (CMAKE_CUDA_FLAGS and
#     those of the build type), the target's CUDA_ARCHITECTURES and the build
#     type as they are at this call: the module reports it with its nvcc and
#     CCCL versions (kgate_module_toolchain), and kgate's nightly names a
#     change of any of them,
#   - -lineinfo, so compute-sanitizer reports name source lines,
#   - the registry's prototypes included before each CUDA source, and
#     --no-undefined: a wrong signature fails the compile, a name that differs
#     between the .def line and the functions fails the link.
# NAME ([a-z0-9_], 1..63) defaults to the target's name made lower case,
# VERSION to `git describe` of the calling source folder, else the project's
# version. The calling project must enable CUDA (project(... LANGUAGES CUDA)).
#
# kgate_add_tests(<target> [CHECK_ARGS <kgate check options>...])
#
# Adds two ctest tests of a module that kgate_add_kernels built (call it after
# include(CTest) or enable_testing()):
#   <target>_load   kgate loads the module (ABI, registry, every function) and
#                   lists each variant of its .def file (lines that start with
#                   KGATE_VARIANT(); no GPU needed;
#   <target>_check  kgate check --kernels on those variants, the correctness
#                   matrix, with CHECK_ARGS (e.g. --sizes, --dtype); skipped
#                   (exit 77) on a host with no GPU, and where the kgate it
#                   runs is host-only (KGATE_MODULE_ONLY with a host-only
#                   kgate on PATH: a hosted runner stays green).
# A host-only kgate describes a module without CUDA but checks none: the load
# test only.
cmake_minimum_required(VERSION 3.18)

# Module flags shared with kgate's own module (kgate's CMakeLists.txt).
function(_kgate_module_flags target)
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit REQUIRED)
  endif()
  set_target_properties(${target} PROPERTIES
    CUDA_RUNTIME_LIBRARY Shared
    CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  target_link_libraries(${target} PRIVATE CUDA::cudart)
  # What the module reports as its flags (kgate/registry.h): no paths, so two
  # checkouts of one commit built alike report the same digest.
  get_target_property(archs ${target} CUDA_ARCHITECTURES)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  string(SHA256 flags_hash "cuda_flags=${CMAKE_CUDA_FLAGS}\nconfig=${CMAKE_BUILD_TYPE}\nconfig_flags=${CMAKE_CUDA_FLAGS_${config}}\narchitectures=${archs}")
  target_compile_definitions(${target} PRIVATE KGATE_FLAGS_HASH="${flags_hash}")
  set(map "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kgate_module.map")
  # --no-undefined: a function the registry names and no source defines (a
  # typo on either side) fails the link, not the load in kgate.
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
endfunction()

function(kgate_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "REGISTRY;NAME;VERSION" "SOURCES")
  if(KG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kgate_add_kernels(${target}): unknown arguments: ${KG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT KG_SOURCES OR NOT KG_REGISTRY)
    message(FATAL_ERROR "kgate_add_kernels(${target}): SOURCES and REGISTRY are required")
  endif()
  get_filename_component(registry "${KG_REGISTRY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${registry}")
    message(FATAL_ERROR "kgate_add_kernels(${target}): REGISTRY ${registry} does not exist")
  endif()
  # The path goes into a C string and an #include: refuse what would need escaping.
  if(registry MATCHES "[\"\\\\\n]")
    message(FATAL_ERROR "kgate_add_kernels(${target}): REGISTRY path has a quote, backslash or newline: ${registry}")
  endif()

  if(DEFINED KG_NAME)
    set(name "${KG_NAME}")
  else()
    string(TOLOWER "${target}" name)
    string(REGEX REPLACE "[^a-z0-9_]" "_" name "${name}")
  endif()
  string(LENGTH "${name}" len)
  if(NOT name MATCHES "^[a-z0-9_]+$" OR len GREATER 63)
    message(FATAL_ERROR "kgate_add_kernels(${target}): NAME '${name}' must be [a-z0-9_], 1..63 characters")
  endif()

  if(DEFINED KG_VERSION)
    set(version "${KG_VERSION}")
  else()
    execute_process(COMMAND git describe --always --dirty --abbrev=12
                    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE version
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR version STREQUAL "")
      set(version "${PROJECT_VERSION}")
    endif()
    if(version STREQUAL "")
      set(version unknown)
    endif()
  endif()
  # VERSION is free text: escape it for a C string literal; one line only.
  string(REGEX REPLACE "[\r\n].*" "" version "${version}")
  string(REPLACE "\\" "\\\\" version "${version}")
  string(REPLACE "\"" "\\\"" version "${version}")

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "kgate_add_kernels(${target}): enable CUDA first (project(... LANGUAGES CUDA) or enable_language(CUDA))")
  endif()

  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${target}_kgate_registry.cu")
  file(CONFIGURE OUTPUT "${gen}" CONTENT
"// Generated by kgate_add_kernels(${target}): the module's registry and its exports.
#define KGATE_REGISTRY \"@registry@\"
#define KGATE_MODULE_NAME \"@name@\"
#define KGATE_MODULE_VERSION \"@version@\"
#include <kgate/registry.h>
" @ONLY)
  set_property(SOURCE "${gen}" APPEND PROPERTY OBJECT_DEPENDS "${registry}")
  # The registry's prototypes on top of every CUDA source (kgate/prototypes.h):
  # a variant function with a signature other than the ABI's does not compile.
  set(protos "${CMAKE_CURRENT_BINARY_DIR}/${target}_kgate_prototypes.h")
  file(CONFIGURE OUTPUT "${protos}" CONTENT
"// Generated by kgate_add_kernels(${target}): nvcc includes it before each CUDA source.
#define KGATE_REGISTRY \"@registry@\"
#include <kgate/prototypes.h>
" @ONLY)

  if(NOT DEFINED CUDAToolkit_VERSION_MAJOR)
    find_package(CUDAToolkit REQUIRED)
  endif()
  add_library(${target} MODULE ${KG_SOURCES} "${gen}")
  set_target_properties(${target} PROPERTIES KGATE_REGISTRY "${registry}")
  target_link_libraries(${target} PRIVATE kgate::headers)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--pre-include=${protos}>")
  # kgate/dispatch.cuh uses if constexpr.
  target_compile_features(${target} PRIVATE cuda_std_17)
  _kgate_module_flags(${target})
  # kgate's worker and the module must share one CUDA runtime (libcudart.so.<major>).
  if(KGATE_CUDA_VERSION_MAJOR AND NOT CUDAToolkit_VERSION_MAJOR STREQUAL KGATE_CUDA_VERSION_MAJOR)
    message(WARNING "kgate_add_kernels(${target}): this toolkit is CUDA ${CUDAToolkit_VERSION_MAJOR}, kgate was "
                    "built with CUDA ${KGATE_CUDA_VERSION_MAJOR}: the worker would hold two CUDA runtimes; "
                    "build the module with CUDA ${KGATE_CUDA_VERSION_MAJOR}")
  endif()
endfunction()

function(kgate_add_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "" "CHECK_ARGS")
  if(KG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kgate_add_tests(${target}): unknown arguments: ${KG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kgate_add_tests(${target}): no such target (call kgate_add_kernels first)")
  endif()
  get_target_property(registry ${target} KGATE_REGISTRY)
  if(NOT registry)
    message(FATAL_ERROR "kgate_add_tests(${target}): not a module of kgate_add_kernels")
  endif()
  if(KGATE_HOST_ONLY)
    message(STATUS "kgate_add_tests(${target}): this kgate is host-only: the load test only (no check)")
  endif()
  if(NOT KGATE_EXECUTABLE)
    message(WARNING "kgate_add_tests(${target}): no kgate to load the module with (KGATE_MODULE_ONLY and none on PATH; "
                    "-DKGATE_EXECUTABLE=/path/to/kgate): no tests added")
    return()
  endif()
  # The names the module must have: the .def file's, read again when it changes.
  file(STRINGS "${registry}" lines REGEX "^[ \t]*KGATE_VARIANT\\([ \t]*[a-z0-9_]+")
  set(names)
  foreach(line IN LISTS lines)
    string(REGEX MATCH "KGATE_VARIANT\\([ \t]*([a-z0-9_]+)" _ "${line}")
    list(APPEND names "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "kgate_add_tests(${target}): no line of ${registry} starts with KGATE_VARIANT(")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${registry}")
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kgate_test.sh")
  add_test(NAME ${target}_load COMMAND sh "${script}" load "${KGATE_EXECUTABLE}" $<TARGET_FILE:${target}> ${names})
  if(KGATE_HOST_ONLY) # it describes a module without CUDA; it cannot check one
    return()
  endif()
  add_test(NAME ${target}_check COMMAND sh "${script}" check "${KGATE_EXECUTABLE}" $<TARGET_FILE:${target}> ${names}
                                        -- ${KG_CHECK_ARGS})
  set_tests_properties(${target}_check PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
