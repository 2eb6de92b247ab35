// SPDX-License-Identifier: MIT
// check_screenshot FILE.png: fails unless the image looks like a drawn window rather than a blank
// (or single-colour) surface: at least kMinColours distinct colours and no colour covering more
// than kMaxShare of the pixels.
#include <QHash>
#include <QImage>
#include <cstdio>

namespace {
constexpr int kMinColours = 16;
constexpr double kMaxShare = 0.97;
constexpr int kMinWidth = 320;
constexpr int kMinHeight = 200;
} // namespace

int main(int argc, char *argv[])
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE.png\n", argv[0]);
        return 2;
    }
    QImage image;
    if (!image.load(QString::fromLocal8Bit(argv[1]), "PNG")) {
        std::fprintf(stderr, "FAIL: cannot read %s as a PNG\n", argv[1]);
        return 1;
    }
    image = image.convertToFormat(QImage::Format_RGB32);

    QHash<QRgb, qint64> counts;
    for (int y = 0; y < image.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            ++counts[line[x]];
    }
    QRgb dominant = 0;
    qint64 dominantCount = 0;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > dominantCount) {
            dominant = it.key();
            dominantCount = it.value();
        }
    }
    const double pixels = double(image.width()) * double(image.height());
    const double share = pixels > 0 ? double(dominantCount) / pixels : 1.0;
    std::printf("%s: %dx%d, %lld distinct colours, most common #%06x covers %.1f%%\n", argv[1],
                image.width(), image.height(), static_cast<long long>(counts.size()),
                dominant & 0xffffffu, 100.0 * share);

    bool ok = true;
    if (image.width() < kMinWidth || image.height() < kMinHeight) {
        std::fprintf(stderr, "FAIL: image smaller than %dx%d\n", kMinWidth, kMinHeight);
        ok = false;
    }
    if (counts.size() < kMinColours) {
        std::fprintf(stderr, "FAIL: fewer than %d distinct colours: a blank window?\n",
                     kMinColours);
        ok = false;
    }
    if (share > kMaxShare) {
        std::fprintf(stderr, "FAIL: one colour covers more than %.0f%% of the image\n",
                     100.0 * kMaxShare);
        ok = false;
    }
    return ok ? 0 : 1;
}
