// LOLWUT [VERSION v] [...]: Redis's computer art command (lolwut.c, lolwut5.c, lolwut6.c in
// Redis 7.0). Without VERSION, or with one that has no drawing of its own, it answers the
// version line; VERSION 5 draws Georg Nees's Schotter in Braille characters and VERSION 6 a city
// skyline in terminal colors, each followed by its credit line.
//
// The drawings are Redis's, step for step (the same float arithmetic, the same order of random
// draws), but the draws come from the server's seeded source instead of rand(): a picture is
// byte-identical to Redis's only where Redis draws nothing at random (Schotter with at most two
// rows of squares, a skyline one row tall).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/version.h"

namespace warden::server {
namespace {

// rand() as Redis sees it: uniform in [0, RAND_MAX], RAND_MAX = 2^31 - 1.
int Rand(storage::Random& random) { return static_cast<int>(random.Below(std::uint64_t{1} << 31)); }
constexpr float kRandMax = 2147483647.0f;

// Pixels of rows [top, top + height) of a picture `width` wide (Redis's lwCanvas, which is the
// whole picture: top 0). Writes outside are dropped and reads outside give 0, as lwDrawPixel and
// lwGetPixel.
class Canvas {
 public:
  Canvas(int width, int top, int height, std::uint8_t background)
      : width_(width),
        top_(top),
        height_(height),
        pixels_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), background) {}

  void Set(int x, int y, int color) {
    if (x < 0 || x >= width_ || y < top_ || y >= top_ + height_) return;
    pixels_[Index(x, y)] = static_cast<std::uint8_t>(color);
  }
  int Get(int x, int y) const {
    if (x < 0 || x >= width_ || y < top_ || y >= top_ + height_) return 0;
    return pixels_[Index(x, y)];
  }

  // Bresenham's line from (x1, y1) to (x2, y2), both ends included (lwDrawLine).
  void Line(int x1, int y1, int x2, int y2, int color) {
    const int dx = std::abs(x2 - x1);
    const int dy = std::abs(y2 - y1);
    const int sx = x1 < x2 ? 1 : -1;
    const int sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    while (true) {
      Set(x1, y1, color);
      if (x1 == x2 && y1 == y2) break;
      const int e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }

 private:
  std::size_t Index(int x, int y) const {
    return static_cast<std::size_t>(y - top_) * static_cast<std::size_t>(width_) +
           static_cast<std::size_t>(x);
  }

  int width_;
  int top_;
  int height_;
  std::vector<std::uint8_t> pixels_;
};

// ---- VERSION 5: Schotter ----

// One square of Schotter, its corners already rotated and placed (lwDrawSquare's points).
struct Square {
  int px[4];
  int py[4];
  int min_y;
  int max_y;
};

// lwDrawSquare's geometry: a square of side `size` centered on (x, y), rotated by `angle`, as the
// four points at 45 + 90k degrees of its circumscribed circle. The float/double mix is Redis's,
// so the rounding lands on the same pixels.
Square PlaceSquare(int x, int y, float size, float angle) {
  Square s{};
  size /= 1.4142135623;
  size = std::round(size);
  float k = M_PI / 4 + angle;
  for (int j = 0; j < 4; ++j) {
    s.px[j] = static_cast<int>(std::round(std::sin(static_cast<double>(k)) * size + x));
    s.py[j] = static_cast<int>(std::round(std::cos(static_cast<double>(k)) * size + y));
    k += M_PI / 2;
  }
  s.min_y = *std::min_element(s.py, s.py + 4);
  s.max_y = *std::max_element(s.py, s.py + 4);
  return s;
}

// The squares of lwDrawSchotter, row by row: from the third row down each is turned and shifted
// at random, more the lower it is.
std::vector<Square> SchotterSquares(int padding, float square_side, int per_row, int per_col,
                                    storage::Random& random) {
  std::vector<Square> squares;
  squares.reserve(static_cast<std::size_t>(per_row) * static_cast<std::size_t>(per_col));
  for (int y = 0; y < per_col; ++y) {
    for (int x = 0; x < per_row; ++x) {
      int sx = static_cast<int>(x * square_side + square_side / 2 + padding);
      int sy = static_cast<int>(y * square_side + square_side / 2 + padding);
      float angle = 0;
      if (y > 1) {
        float r1 = static_cast<float>(Rand(random)) / kRandMax / static_cast<float>(per_col) * y;
        float r2 = static_cast<float>(Rand(random)) / kRandMax / static_cast<float>(per_col) * y;
        float r3 = static_cast<float>(Rand(random)) / kRandMax / static_cast<float>(per_col) * y;
        if (Rand(random) % 2) r1 = -r1;
        if (Rand(random) % 2) r2 = -r2;
        if (Rand(random) % 2) r3 = -r3;
        angle = r1;
        sx = static_cast<int>(sx + r2 * square_side / 3);
        sy = static_cast<int>(sy + r3 * square_side / 3);
      }
      squares.push_back(PlaceSquare(sx, sy, square_side, angle));
    }
  }
  return squares;
}

// One Braille character (U+2800 + dots) for the 2x4 pixels at (x, y); bit order as Redis's
// lwTranslatePixelsGroup: 0 3 / 1 4 / 2 5 / 6 7.
void AppendBraille(const Canvas& canvas, int x, int y, std::string& out) {
  int dots = 0;
  if (canvas.Get(x, y)) dots |= 1 << 0;
  if (canvas.Get(x, y + 1)) dots |= 1 << 1;
  if (canvas.Get(x, y + 2)) dots |= 1 << 2;
  if (canvas.Get(x + 1, y)) dots |= 1 << 3;
  if (canvas.Get(x + 1, y + 1)) dots |= 1 << 4;
  if (canvas.Get(x + 1, y + 2)) dots |= 1 << 5;
  if (canvas.Get(x, y + 3)) dots |= 1 << 6;
  if (canvas.Get(x + 1, y + 3)) dots |= 1 << 7;
  const int code = 0x2800 + dots;
  out.push_back(static_cast<char>(0xE0 | (code >> 12)));
  out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
}

// Rows of pixels drawn at a time. The picture can be 2000 x 400000 pixels (1000 columns, one
// square per row, 200 rows of squares), so it is drawn in bands, each with the squares that
// reach into it; a multiple of 4 keeps every line of Braille inside one band.
constexpr int kBandRows = 256;

std::string Schotter(int cols, int per_row, int per_col, storage::Random& random) {
  const int width = cols * 2;
  const int padding = width > 4 ? 2 : 0;
  const float square_side = static_cast<float>(width - padding * 2) / static_cast<float>(per_row);
  const int height =
      static_cast<int>(square_side * static_cast<float>(per_col) + static_cast<float>(padding * 2));
  const std::vector<Square> squares =
      SchotterSquares(padding, square_side, per_row, per_col, random);

  std::string text;
  text.reserve(static_cast<std::size_t>(height / 4 + 1) * (static_cast<std::size_t>(cols) * 3 + 1) +
               128);
  for (int top = 0; top < height; top += kBandRows) {
    const int rows = std::min(kBandRows, height - top);
    Canvas band(width, top, rows, 0);
    for (const Square& s : squares) {
      if (s.max_y < top || s.min_y >= top + rows) continue;
      for (int j = 0; j < 4; ++j) {
        band.Line(s.px[j], s.py[j], s.px[(j + 1) % 4], s.py[(j + 1) % 4], 1);
      }
    }
    for (int y = top; y < top + rows; y += 4) {
      for (int x = 0; x < width; x += 2) AppendBraille(band, x, y, text);
      // Redis ends every line but one that starts on the last pixel row, so a picture whose
      // height is not 1 modulo 4 ends with an empty line.
      if (y != height - 1) text.push_back('\n');
    }
  }
  text.append("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ");
  text.append(kRedisVersion);
  text.push_back('\n');
  return text;
}

// ---- VERSION 6: a skyline ----

struct Skyscraper {
  int xoff;
  int width;
  int height;
  bool windows;
  int color;
};

// generateSkyscraper: a block standing on the bottom row with a roof two pixels narrower on each
// side; windows, two pixels wide and one tall, in one of the two grays.
void DrawSkyscraper(Canvas& canvas, int canvas_height, const Skyscraper& s,
                    storage::Random& random) {
  const int start_y = canvas_height - 1;
  const int end_y = start_y - s.height + 1;
  for (int y = start_y; y >= end_y; --y) {
    for (int x = s.xoff; x < s.xoff + s.width; ++x) {
      if (y == end_y && (x <= s.xoff + 1 || x >= s.xoff + s.width - 2)) continue;
      int color = s.color;
      if (s.windows && x > s.xoff + 1 && x < s.xoff + s.width - 2 && y > end_y + 1 &&
          y < start_y - 1) {
        const int rel_x = x - (s.xoff + 1);
        const int rel_y = y - (end_y + 1);
        if (rel_x / 2 % 2 && rel_y % 2) {
          do {
            color = 1 + Rand(random) % 2;
          } while (color == s.color);
          // The second pixel of a window takes the first's color (the draw above still counts).
          if (rel_x % 2) color = canvas.Get(x - 1, y);
        }
      }
      canvas.Set(x, y, color);
    }
  }
}

// generateSkyline: two rows of windowless grays behind (the lighter one furthest), then black
// skyscrapers with windows in front.
void DrawSkyline(Canvas& canvas, int width, int height, storage::Random& random) {
  Skyscraper s{};
  for (int color = 2; color >= 1; --color) {
    s.color = color;
    for (int offset = -10; offset < width;) {
      offset += Rand(random) % 8;
      s.xoff = offset;
      s.width = 10 + Rand(random) % 9;
      // (rand() % h) / 2, as Redis's precedence has it.
      s.height = height / 2 + Rand(random) % height / (color == 2 ? 2 : 3);
      s.windows = false;
      DrawSkyscraper(canvas, height, s, random);
      offset += color == 2 ? s.width / 2 : s.width + 1;
    }
  }
  s.color = 0;
  for (int offset = -10; offset < width;) {
    offset += Rand(random) % 8;
    s.xoff = offset;
    s.width = 5 + Rand(random) % 14;
    if (s.width % 4) s.width += s.width % 3;
    s.height = height / 3 + Rand(random) % height / 2;
    s.windows = true;
    DrawSkyscraper(canvas, height, s, random);
    offset += s.width + 5;
  }
}

std::string Skyline(int cols, int rows, storage::Random& random) {
  Canvas canvas(cols, 0, rows, 3);
  DrawSkyline(canvas, cols, rows, random);
  // One space per pixel, its foreground and background set to one of the four gray levels.
  constexpr std::string_view kColors[] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                                          "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
  std::string text;
  text.reserve(static_cast<std::size_t>(rows) * (static_cast<std::size_t>(cols) * 19 + 1) + 160);
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < cols; ++x) text.append(kColors[canvas.Get(x, y) & 3]);
    if (y != rows - 1) text.push_back('\n');
  }
  text.append(
      "\nDedicated to the 8 bit game developers of past and present.\n"
      "Original 8 bit image from Plaguemon by hikikomori. Redis ver. ");
  text.append(kRedisVersion);
  text.push_back('\n');
  return text;
}

// Reads the optional numeric arguments of a drawing into `values` (left at their defaults where
// absent; extra arguments are ignored, as Redis does), then clamps each to [1, max].
[[nodiscard]] bool DrawingArgs(CommandContext& ctx, std::span<const std::string_view> args,
                               std::span<std::int64_t> values, std::span<const std::int64_t> max) {
  for (std::size_t i = 0; i < values.size() && i < args.size(); ++i) {
    if (!IntegerArg(ctx, args[i], values[i])) return false;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = std::clamp<std::int64_t>(values[i], 1, max[i]);
  }
  return true;
}

}  // namespace

void LolwutCommand(CommandContext& ctx) {
  // Redis prints VERSION's number as "%u.0.0" of its low 32 bits and dispatches on that text:
  // 5 draws Schotter, 6 the skyline, anything else (and no VERSION) the version line.
  std::uint32_t version = 0;
  std::span<const std::string_view> rest;
  if (ctx.argc() >= 3 && ArgIs(ctx.arg(1), "version")) {
    std::int64_t v = 0;
    if (!IntegerArg(ctx, ctx.arg(2), v)) return;
    version = static_cast<std::uint32_t>(v);
    rest = ctx.args.subspan(3);
  }
  if (version == 5) {
    std::int64_t values[] = {66, 8, 12};  // columns, squares per row, squares per column
    constexpr std::int64_t kMax[] = {1000, 200, 200};
    if (!DrawingArgs(ctx, rest, values, kMax)) return;
    ctx.reply.Verbatim(Schotter(static_cast<int>(values[0]), static_cast<int>(values[1]),
                                static_cast<int>(values[2]), ctx.server.random));
    return;
  }
  if (version == 6) {
    std::int64_t values[] = {80, 20};  // columns, rows
    constexpr std::int64_t kMax[] = {1000, 1000};
    if (!DrawingArgs(ctx, rest, values, kMax)) return;
    ctx.reply.Verbatim(
        Skyline(static_cast<int>(values[0]), static_cast<int>(values[1]), ctx.server.random));
    return;
  }
  std::string text = "Redis ver. ";
  text.append(kRedisVersion);
  text.push_back('\n');
  ctx.reply.Verbatim(text);
}

}  // namespace warden::server
