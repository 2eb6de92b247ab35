// SPDX-License-Identifier: MIT
// check_screenshot FILE.png: a Qt Test that fails unless the image looks like a drawn window
// rather than a blank (or single-colour) surface: at least kMinColours distinct colours, no
// colour covering more than kMaxShare of the pixels, and a window-sized image.
#include <QHash>
#include <QImage>
#include <QObject>
#include <QTest>

#include <cstdio>
#include <vector>

namespace {
constexpr int kMinColours = 16;
constexpr double kMaxShare = 0.97;
constexpr int kMinWidth = 320;
constexpr int kMinHeight = 200;
QString g_path;
} // namespace

class CheckScreenshot : public QObject {
    Q_OBJECT
private slots:
    void notBlank()
    {
        QImage image;
        QVERIFY2(image.load(g_path, "PNG"), qPrintable(QStringLiteral("cannot read %1 as a PNG").arg(g_path)));
        image = image.convertToFormat(QImage::Format_RGB32);
        QVERIFY2(image.width() >= kMinWidth && image.height() >= kMinHeight,
                 qPrintable(QStringLiteral("image %1x%2 is smaller than %3x%4")
                                .arg(image.width())
                                .arg(image.height())
                                .arg(kMinWidth)
                                .arg(kMinHeight)));

        QHash<QRgb, qint64> counts;
        for (int y = 0; y < image.height(); ++y) {
            const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
            for (int x = 0; x < image.width(); ++x)
                ++counts[line[x]];
        }
        qint64 dominantCount = 0;
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            dominantCount = std::max(dominantCount, it.value());
        const double share = double(dominantCount) / (double(image.width()) * double(image.height()));
        std::printf("%s: %dx%d, %lld distinct colours, most common colour covers %.1f%%\n", qPrintable(g_path),
                    image.width(), image.height(), static_cast<long long>(counts.size()), 100.0 * share);
        QVERIFY2(counts.size() >= kMinColours,
                 qPrintable(QStringLiteral("only %1 distinct colours: a blank window?").arg(counts.size())));
        QVERIFY2(share <= kMaxShare,
                 qPrintable(QStringLiteral("one colour covers %1% of the image").arg(100.0 * share, 0, 'f', 1)));
    }
};

int main(int argc, char *argv[])
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.png\n", argv[0]);
        return 2;
    }
    g_path = QString::fromLocal8Bit(argv[1]);
    // The remaining arguments (none in the ctest run) go to Qt Test.
    std::vector<char *> rest{argv[0]};
    for (int i = 2; i < argc; ++i)
        rest.push_back(argv[i]);
    CheckScreenshot test;
    return QTest::qExec(&test, static_cast<int>(rest.size()), rest.data());
}

#include "check_screenshot.moc"
