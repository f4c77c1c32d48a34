# tailor_library(NAME SOURCES ... DEPS ...): one static library per component folder.
# Include paths are rooted at the repository, so headers read as "kube/model/quantity.h".
function(tailor_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# tailor_test(NAME SOURCES ... DEPS ... LABELS ...): a GoogleTest binary registered with ctest.
# One label each (gtest_discover_tests passes a list of labels on as property names, keeping only
# the first): unit (pure, fast, also run under ASan + UBSan), unit-threads (unit tests that start
# threads: also run under TSan; `ctest -L unit` is a regular expression and selects them too),
# integration (in-process real servers), containerd (real runtime), e2e (whole system).
function(tailor_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # Tests find scripts and data of the checkout through this, never through __FILE__ (which
  # ccache's base_dir makes relative).
  target_compile_definitions(${name} PRIVATE TAILOR_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  if(ARG_LABELS MATCHES "^unit")
    # The sanitizer pass builds only these (target unit-tests), not every binary.
    if(NOT TARGET unit-tests)
      add_custom_target(unit-tests)
    endif()
    add_dependencies(unit-tests ${name})
  endif()
  if("unit-threads" IN_LIST ARG_LABELS)
    # Unit tests that start threads; the ThreadSanitizer pass builds only these (thread-tests).
    if(NOT TARGET thread-tests)
      add_custom_target(thread-tests)
    endif()
    add_dependencies(thread-tests ${name})
  endif()
endfunction()

# tailor_folder_library(NAME DIR DEPS ...): a library of every .cpp directly in DIR
# (no main()). Adding a file to a component folder needs no CMake edit.
function(tailor_folder_library name dir)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(srcs)
    tailor_library(${name} SOURCES ${srcs} DEPS ${ARG_DEPS})
  endif()
endfunction()

# tailor_folder_tests(NAME DIR DEPS ... LABELS ...): one test binary of every *_test.cpp in DIR
# (one link per folder keeps the build lean on two cores).
function(tailor_folder_tests name dir)
  cmake_parse_arguments(ARG "" "TIMEOUT" "DEPS;LABELS;EXTRA" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*_test.cpp)
  if(srcs)
    tailor_test(${name} SOURCES ${srcs} ${ARG_EXTRA} DEPS ${ARG_DEPS} LABELS ${ARG_LABELS}
      TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()
