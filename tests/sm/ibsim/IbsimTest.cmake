# ibsm_add_ibsim_test(NAME NET netfile [IBSIM_ARGS ...] [LIBS ...] [ARGS ...])
#
# One GoogleTest executable NAME (from NAME.cpp in the calling folder) run
# against its own ibsim simulating NET, through run-with-ibsim.sh, which
# sets LD_PRELOAD=umad2sim and a unique IBSIM_SOCKNAME. Such executables
# are not discovered test by test: LD_PRELOAD must be set when the process
# starts, so the whole executable is one ctest entry, labelled `ibsim`.
# Include this file from any tests/ folder that needs it.
set(IBSM_RUN_WITH_IBSIM ${CMAKE_CURRENT_LIST_DIR}/run-with-ibsim.sh)

function(ibsm_add_ibsim_test name)
  cmake_parse_arguments(ARG "" "NET" "IBSIM_ARGS;LIBS;ARGS" ${ARGN})
  if(NOT TARGET ${name})
    add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/${name}.cpp)
    target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
    ibsm_test_pch(${name})
  endif()
  add_test(NAME ${name}
           COMMAND ${IBSM_RUN_WITH_IBSIM} ${ARG_IBSIM_ARGS} ${ARG_NET} -- $<TARGET_FILE:${name}>
                   ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS ibsim TIMEOUT 300)
endfunction()
