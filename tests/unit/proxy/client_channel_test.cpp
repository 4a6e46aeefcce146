// ClientChannel's hold and release over a real loopback TCP connection: what is sent while held
// reaches the peer only at release(), in the order it was sent; a wait for the queue to drain
// releases first, so a large answer still streams.
#include "proxy/session/client_channel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)
#include <vector>

#include "proxy/asio.hpp"
#include "proxy/wire/byte_buffer.hpp"

namespace pgrange::proxy {
namespace {

class ClientChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    peer_.connect(acceptor.local_endpoint());
    tcp::socket server(io_);
    acceptor.accept(server);
    channel_ = std::make_unique<ClientChannel>(std::move(server));
    asio::co_spawn(io_, channel_->write_loop(), asio::detached);
    io_.poll();  // the writer starts and waits for work
    peer_.non_blocking(true);
  }
  void TearDown() override {
    channel_->close();
    io_.poll();
  }

  /// What the peer can read now, without waiting for more.
  std::string available() {
    io_.poll();
    std::string got;
    char buf[65536];
    for (;;) {
      error_code ec;
      size_t n = peer_.read_some(asio::buffer(buf), ec);
      if (ec) break;
      got.append(buf, n);
    }
    return got;
  }
  /// Reads until `n` bytes came (the writer runs meanwhile).
  std::string read_exactly(size_t n) {
    std::string got;
    for (int spins = 0; got.size() < n && spins < 100000; ++spins) got += available();
    return got;
  }

  asio::io_context io_;
  tcp::socket peer_{io_};
  std::unique_ptr<ClientChannel> channel_;
};

TEST_F(ClientChannelTest, WhatIsSentGoesOutAtOnceWhenNotHeld) {
  channel_->send("one");
  EXPECT_EQ(read_exactly(3), "one");
  channel_->send_view("two");
  EXPECT_EQ(read_exactly(3), "two");
}

TEST_F(ClientChannelTest, WhatIsSentWhileHeldGoesOutTogetherAtRelease) {
  channel_->hold();
  channel_->send("one,");
  channel_->send_view("two,");
  channel_->send("three");
  EXPECT_EQ(available(), "");  // held: nothing written, the writer not woken
  EXPECT_EQ(channel_->queued(), 13u);
  channel_->release();
  EXPECT_EQ(read_exactly(13), "one,two,three");
  // Released, the next reply goes out on its own again.
  channel_->send("four");
  EXPECT_EQ(read_exactly(4), "four");
  channel_->release();  // a second release changes nothing
  EXPECT_EQ(available(), "");
}

TEST_F(ClientChannelTest, WaitingForTheQueueReleasesWhatIsHeld) {
  channel_->hold();
  std::string big(1 << 20, 'x');
  channel_->send(big);
  EXPECT_EQ(available(), "");
  bool drained = false;
  asio::co_spawn(
      io_,
      [&]() -> awaitable<void> {
        co_await channel_->wait_below(0);
        drained = true;
      },
      asio::detached);
  std::string got = read_exactly(big.size());
  for (int spins = 0; !drained && spins < 100000; ++spins) io_.poll();
  EXPECT_TRUE(drained);
  EXPECT_EQ(got.size(), big.size());
  EXPECT_EQ(got, big);
}

TEST_F(ClientChannelTest, AWaitForTheClientNeedsNoBufferAndTheReadThenTakesWhatCame) {
  bool woke = false;
  error_code wait_ec;
  asio::co_spawn(
      io_,
      [&]() -> awaitable<void> {
        co_await channel_->wait_readable(wait_ec);
        woke = true;
      },
      asio::detached);
  io_.poll();
  EXPECT_FALSE(woke);  // nothing sent yet
  char buf[16];
  error_code ec;
  EXPECT_EQ(channel_->read_now(buf, sizeof buf, ec), 0U);
  EXPECT_TRUE(ec == asio::error::would_block || ec == asio::error::try_again) << ec.message();
  asio::write(peer_, asio::buffer(std::string("hello")));
  for (int spins = 0; !woke && spins < 100000; ++spins) io_.poll();
  ASSERT_TRUE(woke);
  EXPECT_FALSE(wait_ec) << wait_ec.message();
  ec = {};
  size_t n = channel_->read_now(buf, sizeof buf, ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(std::string(buf, n), "hello");
}

TEST(ByteBufferPark, AnEmptyBufferLendsItsMemoryAndTakesOneBackBeforeTheNextRead) {
  std::vector<std::vector<char>> spares;
  ByteBuffer in;
  in.append("query");
  in.park(spares, 2, 1 << 16);
  EXPECT_TRUE(spares.empty());  // not empty: kept
  EXPECT_EQ(in.view(), "query");
  in.consume(5);
  in.park(spares, 2, 1 << 16);
  ASSERT_EQ(spares.size(), 1U);
  EXPECT_GE(spares.front().size(), 5U);
  EXPECT_EQ(in.writable(), 0U);  // holds nothing while it waits
  in.unpark(spares);
  EXPECT_TRUE(spares.empty());
  EXPECT_GE(in.writable(), 5U);
  in.append("next");
  EXPECT_EQ(in.view(), "next");
  // No more spares than asked for, none larger than `keep`.
  ByteBuffer a, b, big;
  a.append("a");
  b.append("b");
  big.append(std::string(100, 'x'));
  for (ByteBuffer* x : {&a, &b, &big}) x->consume(x->size());
  big.park(spares, 2, 64);
  EXPECT_TRUE(spares.empty());
  EXPECT_EQ(big.writable(), 0U);
  a.park(spares, 1, 64);
  b.park(spares, 1, 64);
  EXPECT_EQ(spares.size(), 1U);
  EXPECT_EQ(b.writable(), 0U);
}

}  // namespace
}  // namespace pgrange::proxy
