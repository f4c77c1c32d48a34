# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.81 EXACT REQUIRED COMPONENTS json program_options)
find_package(OpenSSL REQUIRED)
find_package(simdjson REQUIRED)
find_package(spdlog REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(Armadillo REQUIRED)
find_package(SQLite3 REQUIRED)  # tailor-cluster's object database (libsqlite3-dev)
# RE2 (libre2-dev): CRD schema patterns with Go regexp's syntax and linear-time matching. Debian
# ships no CMake package for it; its pkg-config file would add -pthread to every file of a target.
find_library(RE2_LIBRARY re2 REQUIRED)
find_path(RE2_INCLUDE_DIR re2/re2.h REQUIRED)
add_library(RE2::re2 UNKNOWN IMPORTED)
set_target_properties(RE2::re2 PROPERTIES IMPORTED_LOCATION ${RE2_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${RE2_INCLUDE_DIR})
if(TAILOR_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(TAILOR_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Beast/Asio are header-only; compile them in separate translation units only
# (see kube/http), and keep their headers out of public headers.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
