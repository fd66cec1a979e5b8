#pragma once
// Boost.Asio/Beast for the proxy core. <utility> must come first with g++ 12
// and Boost 1.74 (Asio uses std::exchange without including it).
#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace weld::proxy {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;
template <typename T>
using awaitable = boost::asio::awaitable<T>;
}  // namespace weld::proxy
