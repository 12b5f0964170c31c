// The backend a test binary checks against the reference: the one source compiled per binary
// with PORTLA_TEST_BACKEND set, so that the test sources themselves compile once for all backends.
#include "backends/backend_fixture.hpp"

namespace portla::test {

const char* backend_under_test() { return PORTLA_TEST_BACKEND; }

}  // namespace portla::test
