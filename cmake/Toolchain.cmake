# Compiler settings shared by every target: ccache when present, warnings, sanitizers.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

# Aggregates here rely on default member initializers, which -Wmissing-field-initializers (in
# -Wextra) reports as missing in every designated or partial initializer.
add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
# The project's own code builds without a warning; -Werror keeps it so. Debian's libraries are
# system headers, so their warnings never reach it.
option(TAILOR_WERROR "Treat warnings in the project's code as errors" ON)
if(TAILOR_WERROR)
  add_compile_options(-Werror)
endif()

# TAILOR_SANITIZE: address (ASan + UBSan; ON means the same) or thread (TSan).
set(TAILOR_SANITIZE "" CACHE STRING "Sanitizer build: address, thread, or empty for none")
if(TAILOR_SANITIZE STREQUAL "thread")
  # -O1 after the build type's flags: TSan slows code 5-15x, and -O0 on top of that would make
  # the threaded tests' timeouts the thing under test.
  # -Wno-tsan: GCC notes that TSan does not model std::atomic_thread_fence, which Asio's
  # headers use; that is a limit of the tool to keep in mind when reading a report, not a defect
  # of the code, and -Werror would otherwise refuse every file that includes Asio.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -O1 -Wno-tsan)
  add_link_options(-fsanitize=thread)
  # Debian's protobuf, abseil and gRPC are not built with TSan, and their headers must describe
  # the classes as those libraries hold them. protobuf 3.21's MapFieldBase gains two members
  # when __SANITIZE_THREAD__ is defined, so generated code and libprotobuf.so disagreed on where
  # every map field's members live: reading a ConfigMap's data (or any map) through reflection
  # crashed. Instrumentation comes from -fsanitize=thread, not from this macro; code of ours that
  # must know asks for TAILOR_TSAN.
  add_compile_options(-U__SANITIZE_THREAD__)
  add_compile_definitions(TAILOR_TSAN)
elseif(TAILOR_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# TAILOR_FUZZ: the libFuzzer targets of fuzz/ (clang only). Every library is compiled with
# coverage instrumentation for the fuzzer and ASan + UBSan, so a crash, a memory error or undefined
# behaviour anywhere under a decoder stops the run with its input.
option(TAILOR_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)
if(TAILOR_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TAILOR_FUZZ needs clang (libFuzzer): configure with "
      "CXX=clang++-14; the compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # -O1 and line tables only: as fast to fuzz as -O2, and much quicker to build on a small machine;
  # line tables are all a crash's stack needs.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined -O1 -gline-tables-only)
  add_link_options(-fsanitize=address,undefined)
endif()
