# The reference implementation (reference-impl/), always available.
add_library(sut_reference INTERFACE)
target_include_directories(sut_reference INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(sut_reference INTERFACE saferecl::reference)
saferecl_adapter(NAME reference TARGET sut_reference
                 CAPABILITIES hazard-pointer rcu hp-batch native-api
                 VERSION "saferecl ${PROJECT_VERSION}")
