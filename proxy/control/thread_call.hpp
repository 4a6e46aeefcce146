#pragma once

#include <functional>
#include <future>
#include <thread>
#include <utility>

#include "proxy/asio.hpp"

namespace pgrange::proxy {

/// Runs fn on the thread that runs `io` and resumes the caller on its own executor with the
/// result: how sessions ask the control plane's blocking threads for something.
template <typename T>
awaitable<T> call_on(asio::io_context& io, std::function<T()> fn) {
  auto caller = co_await asio::this_coro::executor;
  // No coroutine lambda here: g++ 12 mishandles temporaries of those inside co_await.
  auto initiate = [&io, &fn, caller](auto handler) {
    asio::post(io, [fn = std::move(fn), caller, handler = std::move(handler)]() mutable {
      T result = fn();
      asio::post(caller, [handler = std::move(handler), result = std::move(result)]() mutable {
        handler(std::move(result));
      });
    });
  };
  T result =
      co_await asio::async_initiate<decltype(use_awaitable), void(T)>(initiate, use_awaitable);
  co_return result;
}

/// Runs fn on the thread that runs `io` and blocks the calling thread until it has (for a
/// thread that is not an io_context's coroutine: RELOAD on the main thread).
template <typename T>
T wait_on(asio::io_context& io, std::function<T()> fn) {
  std::promise<T> done;
  auto result = done.get_future();
  asio::post(io, [&] { done.set_value(fn()); });
  return result.get();
}

/// A thread that runs `io` until it is stopped, logging (as `what`) and going on after an
/// exception a handler let escape.
std::thread run_io_thread(asio::io_context& io, const char* what);

}  // namespace pgrange::proxy
