//===- line_reader.cpp - Buffered reading of a trace, line by line --------===//
#include "line_reader.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kosan::detail {

LineReader::LineReader(int fd, uint64_t startOffset, size_t bufferBytes)
    : fd_(fd), buffer_(new char[bufferBytes < 64 ? 64 : bufferBytes]),
      capacity_(bufferBytes < 64 ? 64 : bufferBytes), base_(startOffset),
      start_(startOffset) {}

bool LineReader::fill() {
  if (eof_ || error_)
    return false;
  // Keep the unread tail: a line's first bytes must stay contiguous until the
  // skip prefix is decided.
  if (pos_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == capacity_)
    return true;
  for (;;) {
    ssize_t n = ::read(fd_, buffer_.get() + end_, capacity_ - end_);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error_ = errno;
      return false;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<size_t>(n);
    return true;
  }
}

LineReader::Status LineReader::next(Line *line) {
  line->text.clear();
  line->complete = false;
  line->skipped = false;
  line->last = 0;
  line->length = 0;

  if (pos_ == end_ && !fill())
    return error_ ? Status::Error : Status::End;
  line->offset = base_ + pos_;

  if (!skipPrefix_.empty()) {
    while (end_ - pos_ < skipPrefix_.size() && fill()) {
    }
    if (error_)
      return Status::Error;
    line->skipped = end_ - pos_ >= skipPrefix_.size() &&
                    std::memcmp(buffer_.get() + pos_, skipPrefix_.data(),
                                skipPrefix_.size()) == 0;
  }

  for (;;) {
    const char *begin = buffer_.get() + pos_;
    size_t available = end_ - pos_;
    const void *newline = std::memchr(begin, '\n', available);
    size_t take = newline ? static_cast<const char *>(newline) - begin : available;
    if (!line->skipped)
      line->text.append(begin, take);
    if (take > 0)
      line->last = begin[take - 1];
    line->length += take;
    if (newline) {
      pos_ += take + 1;
      line->complete = true;
      return Status::Line;
    }
    pos_ = end_;
    if (!fill())
      return error_ ? Status::Error : Status::Line;
  }
}

} // namespace kosan::detail
