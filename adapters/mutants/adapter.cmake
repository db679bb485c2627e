# The mutants: the reference implementation compiled with its named mutation points
# (reference-impl/include/saferecl/detail/mutation.hpp). One build serves every run-time
# mutant; the active one is chosen at run time with SAFERECL_MUTANT=<id> (see
# mutants/README.md, catalog.json and `./conformance mutants`). It reuses the reference
# adapter's sut.hpp on purpose: a mutant must present exactly the reference's interface,
# differing only in the one broken guarantee.
#
# SAFERECL_API_MUTANT=<n> selects one compile-time API mutant AM-<n> instead: a declaration
# changed. Each is a small patch, api/AM-<nn>.patch, against reference-impl/ (the public
# headers and, for AM-24, src/). Configuring applies it to a copy of reference-impl's
# include/ and src/ in this build tree; the mutable library is compiled from that copy and
# puts its include/ first on its PUBLIC include path, so the library, every battery
# executable and the compile-fail tests (through the compile probe's flags) see the same
# mutated declarations. The reference's own headers stay free of test scaffolding.
# `./conformance mutants` sets the variable in a build tree of its own (build/api-mutants/);
# empty, the default, changes nothing.
set(SAFERECL_API_MUTANT "" CACHE STRING
    "mutants adapter: the compile-time API mutant AM-<n> to build (a number; empty: none)")
set(saferecl_mutants_version "")
if(SAFERECL_API_MUTANT)
  if(NOT SAFERECL_API_MUTANT MATCHES "^[1-9][0-9]*$")  # no leading 0: 08 is not octal
    message(FATAL_ERROR "SAFERECL_API_MUTANT must be the number n of AM-<n> (8 for AM-08), "
                        "not '${SAFERECL_API_MUTANT}'")
  endif()
  if(SAFERECL_API_MUTANT LESS 10)
    set(api_mutant_id "AM-0${SAFERECL_API_MUTANT}")
  else()
    set(api_mutant_id "AM-${SAFERECL_API_MUTANT}")
  endif()
  set(api_mutant_patch "${CMAKE_CURRENT_LIST_DIR}/api/${api_mutant_id}.patch")
  if(NOT EXISTS "${api_mutant_patch}")
    message(FATAL_ERROR "SAFERECL_API_MUTANT=${SAFERECL_API_MUTANT}: there is no API mutant "
                        "${api_mutant_id} (no ${api_mutant_patch})")
  endif()
  find_program(SAFERECL_PATCH_PROGRAM patch)
  if(NOT SAFERECL_PATCH_PROGRAM)
    message(FATAL_ERROR "the API mutants need the program `patch` (apt-get install patch)")
  endif()

  # Patch a fresh copy, then move over only the files that differ from the last configure,
  # so reconfiguring the same mutant rebuilds nothing and a different one rebuilds only what
  # includes the files either patch touched.
  set(reference_dir "${PROJECT_SOURCE_DIR}/reference-impl")
  set(mutated_dir "${CMAKE_BINARY_DIR}/api-mutant")
  file(REMOVE_RECURSE "${mutated_dir}.new")
  file(COPY "${reference_dir}/include" "${reference_dir}/src" DESTINATION "${mutated_dir}.new")
  execute_process(COMMAND "${SAFERECL_PATCH_PROGRAM}" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch
                          --input "${api_mutant_patch}"
                  WORKING_DIRECTORY "${mutated_dir}.new"
                  RESULT_VARIABLE patch_status OUTPUT_VARIABLE patch_log ERROR_VARIABLE patch_log)
  if(NOT patch_status EQUAL 0)
    message(FATAL_ERROR "${api_mutant_id}: ${api_mutant_patch} no longer applies to "
                        "reference-impl/ (update the patch):\n${patch_log}")
  endif()
  file(GLOB_RECURSE mutated_files RELATIVE "${mutated_dir}.new" "${mutated_dir}.new/*")
  foreach(file IN LISTS mutated_files)
    get_filename_component(file_dir "${mutated_dir}/${file}" DIRECTORY)
    file(MAKE_DIRECTORY "${file_dir}")
    file(COPY_FILE "${mutated_dir}.new/${file}" "${mutated_dir}/${file}" ONLY_IF_DIFFERENT)
  endforeach()
  file(REMOVE_RECURSE "${mutated_dir}.new")
  file(GLOB_RECURSE reference_files "${reference_dir}/include/*" "${reference_dir}/src/*")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${api_mutant_patch}" ${reference_files})

  target_include_directories(saferecl_reference_mutable BEFORE PUBLIC "${mutated_dir}/include")
  get_target_property(mutable_sources saferecl_reference_mutable SOURCES)
  list(TRANSFORM mutable_sources REPLACE "^(.*/)?src/" "${mutated_dir}/src/")
  set_property(TARGET saferecl_reference_mutable PROPERTY SOURCES ${mutable_sources})
  set(saferecl_mutants_version " and API mutant ${api_mutant_id}")

  # A patch may take a piece of the API away (AM-50: rcu_obj_base): sut.hpp then leaves it
  # out, the harness builds without it, and only the tests that use it are NOT BUILT.
  file(MD5 "${api_mutant_patch}" patch_md5)
  saferecl_adapter_probe(api_mutant_has_rcu_obj_base INCLUDES "${mutated_dir}/include" KEY "${patch_md5}"
                         SOURCE [[
#include <saferecl/rcu.hpp>
struct node : saferecl::rcu_obj_base<node> {};
int main() { return 0; }
]])
  if(NOT api_mutant_has_rcu_obj_base)
    set(api_mutant_definitions SUT_HAS_RCU_OBJ_BASE=0)
  endif()
endif()

add_library(sut_mutants INTERFACE)
target_include_directories(sut_mutants INTERFACE ${PROJECT_SOURCE_DIR}/adapters/reference/include)
target_link_libraries(sut_mutants INTERFACE saferecl::reference_mutable)
if(api_mutant_definitions)
  target_compile_definitions(sut_mutants INTERFACE ${api_mutant_definitions})
endif()
saferecl_adapter(NAME mutants TARGET sut_mutants
                 CAPABILITIES hazard-pointer rcu hp-batch native-api
                 VERSION "saferecl ${PROJECT_VERSION} with mutation points${saferecl_mutants_version}")
