# Included by CTest (TEST_INCLUDE_FILES) for each battery executable: lists the
# executable's doctest cases and adds one CTest test per case.
#
# Inputs: SAFERECL_DISCOVER_EXE, _IMPL, _GROUP, _TIMEOUT, _SUITE_DIR, _INDEX_CASES.
# Test name:  <impl>/<doctest case name>
# Labels:     impl=<impl> tier=<tier> kind=<kind> group=<group> src=<suite source>
#             from the case's doctest suite "<tier>.<kind>"
# Exit code 77 means NOT APPLICABLE (CTest: skipped).
#
# The generated script is cached next to the executable and rebuilt when it is older
# or when the parameters change.
# An executable that does not exist was not built: the report takes its tests from the
# index. One that cannot list its tests gets a single failing test that shows why.
# The cases it lists must be the ones the test index (suite/cmake/index_tests.py) found in
# its sources, with the same doctest suite: otherwise the index, which the reports and the
# mutant sweep trust, is wrong or stale, and CTest stops here with both lists.

set(_exe "${SAFERECL_DISCOVER_EXE}")
if(NOT EXISTS "${_exe}")
  return()
endif()
get_filename_component(_exe_dir "${_exe}" DIRECTORY)
set(_launcher "${SAFERECL_DISCOVER_SUITE_DIR}/cmake/run_test.sh")
# An adapter's ThreadSanitizer suppressions (adapters/<impl>/tsan.supp, each entry with its
# reason) are appended to TSAN_OPTIONS of its tests only; without TSan they are inert.
get_filename_component(_tsan_supp
  "${SAFERECL_DISCOVER_SUITE_DIR}/../adapters/${SAFERECL_DISCOVER_IMPL}/tsan.supp" ABSOLUTE)
set(_env "")
if(EXISTS "${_tsan_supp}")
  set(_env " ENVIRONMENT_MODIFICATION [==[TSAN_OPTIONS=string_append: suppressions=${_tsan_supp}]==]")
endif()
# The cache is keyed by everything that shapes the generated tests besides the executable.
file(MD5 "${CMAKE_CURRENT_LIST_FILE}" _script_md5)
set(_index_md5 "")
if(EXISTS "${SAFERECL_DISCOVER_INDEX_CASES}")
  file(MD5 "${SAFERECL_DISCOVER_INDEX_CASES}" _index_md5)
endif()
string(MD5 _key "${_script_md5}|${_index_md5}|${SAFERECL_DISCOVER_IMPL}|${SAFERECL_DISCOVER_GROUP}|${SAFERECL_DISCOVER_TIMEOUT}|${_launcher}|${_env}")
string(SUBSTRING "${_key}" 0 12 _key)
set(_cache "${_exe}.tests-${_key}.cmake")

if(NOT EXISTS "${_cache}" OR "${_exe}" IS_NEWER_THAN "${_cache}")
  execute_process(COMMAND "${_exe}" --list-test-cases --reporters=xml --no-version=true
                  OUTPUT_VARIABLE _listing ERROR_VARIABLE _listing_err
                  RESULT_VARIABLE _listing_rc TIMEOUT 120)
  set(_script "")
  if(NOT _listing_rc EQUAL 0)
    set(_name "${SAFERECL_DISCOVER_IMPL}/${SAFERECL_DISCOVER_GROUP}: listing the test cases")
    string(APPEND _script
      "add_test([==[${_name}]==] [==[${_exe}]==] --list-test-cases)\n"
      "set_tests_properties([==[${_name}]==] PROPERTIES LABELS [==[impl=${SAFERECL_DISCOVER_IMPL};tier=core;kind=semantic;group=${SAFERECL_DISCOVER_GROUP}]==])\n")
  endif()
  # A name may contain ">" and ";" (a CMake list separator): match whole attributes, and
  # carry ";" as "&#59" (no raw "&" can precede it in XML) until the fields are decoded.
  # "[" and "]" likewise, so that a name stays one element of a CMake list.
  string(REPLACE ";" "&#59" _listing "${_listing}")
  string(REPLACE "[" "&#91" _listing "${_listing}")
  string(REPLACE "]" "&#93" _listing "${_listing}")
  set(_listed "")
  string(REGEX MATCHALL "<TestCase( [a-z_]+=\"[^\"]*\")+" _cases "${_listing}")
  foreach(_case IN LISTS _cases)
    string(REGEX MATCH " name=\"([^\"]*)\"" _m "${_case}")
    set(_name "${CMAKE_MATCH_1}")
    string(REGEX MATCH " testsuite=\"([^\"]*)\"" _m "${_case}")
    set(_suite "${CMAKE_MATCH_1}")
    string(REGEX MATCH " filename=\"([^\"]*)\"" _m "${_case}")
    set(_file "${CMAKE_MATCH_1}")
    foreach(_var _name _suite _file)
      string(REPLACE "&#59" ";" ${_var} "${${_var}}")
      string(REPLACE "&#91" "[" ${_var} "${${_var}}")
      string(REPLACE "&#93" "]" ${_var} "${${_var}}")
      string(REPLACE "&quot;" "\"" ${_var} "${${_var}}")
      string(REPLACE "&apos;" "'" ${_var} "${${_var}}")
      string(REPLACE "&lt;" "<" ${_var} "${${_var}}")
      string(REPLACE "&gt;" ">" ${_var} "${${_var}}")
      string(REPLACE "&amp;" "&" ${_var} "${${_var}}")
    endforeach()
    # The key the index writes for the case: list separators and brackets re-encoded.
    set(_case_key "${_suite} ${_name}")
    string(REPLACE ";" "&#59" _case_key "${_case_key}")
    string(REPLACE "[" "&#91" _case_key "${_case_key}")
    string(REPLACE "]" "&#93" _case_key "${_case_key}")
    list(APPEND _listed "${_case_key}")
    # "<tier>.<kind>"; anything else is labelled tier=unlabelled so it stands out.
    set(_tier unlabelled)
    set(_kind unlabelled)
    if(_suite MATCHES "^(core|strict|qoi|cxx29)\\.(api|semantic|concurrency|stress|fault|lifetime)$")
      set(_tier "${CMAKE_MATCH_1}")
      set(_kind "${CMAKE_MATCH_2}")
    endif()
    if(NOT IS_ABSOLUTE "${_file}")
      # Compiled through ccache with CCACHE_BASEDIR: the path is relative to the directory
      # the compiler ran in, the build tree (the executable's folder is its suite/).
      get_filename_component(_file "${_file}" ABSOLUTE BASE_DIR "${_exe_dir}/..")
    endif()
    file(RELATIVE_PATH _src "${SAFERECL_DISCOVER_SUITE_DIR}/.." "${_file}")
    set(_timeout ${SAFERECL_DISCOVER_TIMEOUT})
    set(_processors 1)
    if(_kind STREQUAL "stress")
      math(EXPR _timeout "${_timeout} * 3")
      set(_processors 2)  # a torture test wants every core to itself
    endif()
    string(REPLACE "," "\\," _filter "${_name}")
    set(_test "${SAFERECL_DISCOVER_IMPL}/${_name}")
    string(APPEND _script
      "add_test([==[${_test}]==] [==[${_launcher}]==] [==[${_exe}]==] [==[--test-case=${_filter}]==])\n"
      "set_tests_properties([==[${_test}]==] PROPERTIES"
      " LABELS [==[impl=${SAFERECL_DISCOVER_IMPL};tier=${_tier};kind=${_kind};group=${SAFERECL_DISCOVER_GROUP};src=${_src}]==]"
      " TIMEOUT ${_timeout} PROCESSORS ${_processors} SKIP_RETURN_CODE 77${_env})\n")
  endforeach()
  if(_listing_rc EQUAL 0)
    list(SORT _listed)
    set(_indexed "")
    if(EXISTS "${SAFERECL_DISCOVER_INDEX_CASES}")
      file(STRINGS "${SAFERECL_DISCOVER_INDEX_CASES}" _indexed)
    endif()
    if(NOT _listed STREQUAL _indexed)
      set(_only_listed ${_listed})
      set(_only_indexed ${_indexed})
      if(_indexed)
        list(REMOVE_ITEM _only_listed ${_indexed})
      endif()
      if(_listed)
        list(REMOVE_ITEM _only_indexed ${_listed})
      endif()
      list(JOIN _only_listed "\n  " _only_listed)
      list(JOIN _only_indexed "\n  " _only_indexed)
      message(FATAL_ERROR "saferecl: ${_exe} lists other doctest cases than the test index "
        "(${SAFERECL_DISCOVER_INDEX_CASES}, written by suite/cmake/index_tests.py) says its "
        "sources define: fix the parser, or reconfigure if the build is stale. "
        "(\"<suite> <name>\"; &#59 &#91 &#93 stand for ; [ ])\n"
        "Only listed by the executable:\n  ${_only_listed}\n"
        "Only in the index:\n  ${_only_indexed}\n")
    endif()
  endif()
  file(WRITE "${_cache}" "${_script}")
endif()
include("${_cache}")
