#include "host/admin/client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "tests/admin/fake_handler.h"

namespace sh::admin::client_test {
namespace {

using namespace std::chrono_literals;

// A port nothing listens on: bound, then released.
uint16_t unusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(AdminClient, ConnectionRefused) {
  uint16_t port = unusedPort();
  auto response = request(Endpoint{":" + std::to_string(port), ""}, "GET", "/status", 5s);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error,
            "cannot connect to 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

TEST(AdminClient, MissingSocket) {
  testing::TempDir dir;
  std::string path = (dir.path() / "none.sock").string();
  auto response = request(Endpoint{"", path}, "GET", "/status", 5s);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error, "cannot connect to " + path + ": No such file or directory");
}

TEST(AdminClient, TimeoutWhenNobodyAnswers) {
  // A listener that accepts (through the kernel's backlog) but never answers.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string where = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto start = std::chrono::steady_clock::now();
  auto response = request(Endpoint{where, ""}, "GET", "/status", 300ms);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ::close(fd);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error, "no answer from " + where + " within 300 ms");
  EXPECT_GE(elapsed, 250ms);
  EXPECT_LT(elapsed, 2s);
}

}  // namespace
}  // namespace sh::admin::client_test
