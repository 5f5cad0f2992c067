//===- line_reader.h - Buffered reading of a trace, line by line (internal) -===//
//
// Traces hold snapshot_chunk lines of several MB each and can be many GB in
// all: the reader holds one buffer and the current line, never the file. Lines
// that start with a given prefix can be skipped without being stored.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_LIB_LINE_READER_H
#define KOSAN_LIB_LINE_READER_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::detail {

class LineReader {
public:
  // fd stays owned by the caller; reading starts at the descriptor's current
  // position, which is taken to be file offset `startOffset`.
  explicit LineReader(int fd, uint64_t startOffset = 0,
                      size_t bufferBytes = size_t(1) << 20);

  enum class Status { Line, End, Error };

  struct Line {
    std::string text;       // without the '\n'; empty when skipped
    bool complete = false;  // ended in '\n' (false: the file ended first)
    bool skipped = false;   // started with the skip prefix; text not stored
    char last = 0;          // last byte before the '\n' (also when skipped)
    uint64_t offset = 0;    // file offset of the line's first byte
    uint64_t length = 0;    // bytes, without the '\n'
  };

  // Lines that start with `prefix` are skipped: their bytes are not stored.
  void skipLinesStartingWith(std::string_view prefix) { skipPrefix_ = prefix; }

  // Status::Error leaves errno's value in error().
  Status next(Line *line);
  int error() const { return error_; }
  // Bytes seen so far (0 means the file was empty).
  uint64_t bytesRead() const { return base_ + end_ - start_; }

private:
  bool fill(); // false at end of file or on an error
  int fd_;
  // Not zero-filled: a reader of a short file touches only the pages it
  // reads into, however large the buffer.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_;
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0; // file offset of buffer_[0]
  uint64_t start_ = 0;
  bool eof_ = false;
  int error_ = 0;
  std::string skipPrefix_;
};

} // namespace kosan::detail

#endif // KOSAN_LIB_LINE_READER_H
