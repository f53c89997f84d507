// The one source of ibsm_test_pch (tests/CMakeLists.txt): the target exists
// to compile gtest's and gmock's headers once into the precompiled header
// that every test executable reuses; it has no code of its own.
