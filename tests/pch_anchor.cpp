// The one source of kb_test_pch, the target that builds the test
// executables' precompiled header (tests/CMakeLists.txt).
