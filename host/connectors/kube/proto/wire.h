// The protobuf wire format, as much of it as the Kubernetes API uses: varints, 64-bit fixed
// values and length-delimited bytes (proto2, gogo-protobuf's marshalling). A Reader never
// reads past its bytes: every length is checked against what is left, a varint is at most ten
// bytes, and a malformed input ends with ok() false.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sh::kube::proto {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

class Reader {
 public:
  explicit Reader(std::string_view bytes) : data_(bytes) {}

  bool done() const { return pos_ >= data_.size(); }
  bool ok() const { return ok_; }
  // Fails the reader; everything after returns zero values.
  void fail() { ok_ = false, pos_ = data_.size(); }

  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= data_.size()) {
        fail();
        return 0;
      }
      const auto byte = static_cast<uint8_t>(data_[pos_++]);
      if (shift == 63 && byte > 1) {
        fail();  // more than 64 bits
        return 0;
      }
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return value;
      }
    }
    fail();
    return 0;
  }

  uint64_t fixed64() { return fixed<uint64_t>(); }
  uint32_t fixed32() { return fixed<uint32_t>(); }

  std::string_view bytes() {
    const uint64_t length = varint();
    if (!ok_ || length > data_.size() - pos_) {
      fail();
      return {};
    }
    std::string_view out = data_.substr(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return out;
  }

  // The next field's number and wire type; false at the end or on a malformed tag.
  bool tag(uint32_t& number, WireType& type) {
    if (done() || !ok_) {
      return false;
    }
    const uint64_t key = varint();
    const uint64_t n = key >> 3;
    const auto t = static_cast<uint8_t>(key & 7);
    if (!ok_ || n == 0 || n > 0x1fffffff || (t != 0 && t != 1 && t != 2 && t != 5)) {
      fail();
      return false;
    }
    number = static_cast<uint32_t>(n);
    type = static_cast<WireType>(t);
    return true;
  }

  // Skips a value of `type`.
  void skip(WireType type) {
    switch (type) {
      case WireType::kVarint:
        varint();
        break;
      case WireType::kFixed64:
        fixed64();
        break;
      case WireType::kBytes:
        bytes();
        break;
      case WireType::kFixed32:
        fixed32();
        break;
    }
  }

 private:
  template <typename T>
  T fixed() {
    if (data_.size() - pos_ < sizeof(T)) {
      fail();
      return 0;
    }
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      value |= static_cast<T>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof(T);
    return value;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// Appends to a string.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void varint(uint64_t value) {
    while (value >= 0x80) {
      out_ += static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    out_ += static_cast<char>(value);
  }
  void tag(uint32_t number, WireType type) {
    varint((static_cast<uint64_t>(number) << 3) | static_cast<uint8_t>(type));
  }
  void bytesField(uint32_t number, std::string_view bytes) {
    tag(number, WireType::kBytes);
    varint(bytes.size());
    out_.append(bytes);
  }
  void varintField(uint32_t number, uint64_t value) {
    tag(number, WireType::kVarint);
    varint(value);
  }
  void fixed64Field(uint32_t number, uint64_t value) {
    tag(number, WireType::kFixed64);
    for (int i = 0; i < 8; ++i) {
      out_ += static_cast<char>((value >> (8 * i)) & 0xff);
    }
  }

 private:
  std::string& out_;
};

}  // namespace sh::kube::proto
