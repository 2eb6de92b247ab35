// SPDX-License-Identifier: MIT
#include "theme.h"
#include "palette.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

namespace quantscope::theme {

namespace {

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80), highlight(0x3d, 0x7e, 0xdb);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
    p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x37, 0x3b));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x6a, 0xa9, 0xff));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x45, 0x47, 0x4c));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Light, QColor(0x50, 0x52, 0x57));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

QPalette lightPalette()
{
    // Fusion's own palette is the light reference.
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QApplication::palette();
}

} // namespace

QPalette printPalette()
{
    QPalette p = lightPalette();
    p.setColor(QPalette::Window, Qt::white);
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::WindowText, Qt::black);
    p.setColor(QPalette::Text, Qt::black);
    return p;
}

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

void apply(Mode mode)
{
    static const QString systemStyle = QApplication::style()->name();
    static const QPalette systemPalette = QApplication::palette();
    // Until a theme was picked, "System" leaves the platform's style and palette alone (and
    // so keeps following the platform's own light/dark changes).
    static bool changed = false;
    switch (mode) {
    case Mode::System:
        if (changed) {
            QApplication::setStyle(systemStyle);
            QApplication::setPalette(systemPalette);
        }
        break;
    case Mode::Light:
        changed = true;
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Mode::Dark:
        changed = true;
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
}

Mode modeFromString(const QString &s)
{
    if (s == QLatin1String("light"))
        return Mode::Light;
    if (s == QLatin1String("dark"))
        return Mode::Dark;
    return Mode::System;
}

QString toString(Mode mode)
{
    switch (mode) {
    case Mode::Light:
        return QStringLiteral("light");
    case Mode::Dark:
        return QStringLiteral("dark");
    case Mode::System:
        break;
    }
    return QStringLiteral("system");
}

QColor weightColor(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xc8, 0xc8, 0xc8) : QColor(0x40, 0x40, 0x40);
}

QColor configColor(int index, const QPalette &palette)
{
    // Eight hues (Okabe–Ito, then Paul Tol's): every pair stays apart (CIELAB ΔE ≥ 10) for
    // normal vision and simulated protanopia, deuteranopia and tritanopia, and from W's grey;
    // each index also has its own marker (configMarker), so the Budget sweep's eight families
    // no longer share four colours (tst_windowlegibility checks the distances).
    static const QColor light[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73),
                                   QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                   QColor(0x33, 0x22, 0x88), QColor(0x8c, 0x56, 0x4b)};
    static const QColor dark[] = {QColor(0x56, 0xb4, 0xe9), QColor(0xe6, 0x9f, 0x00), QColor(0x3c, 0xd0, 0x9e),
                                  QColor(0xe8, 0x9b, 0xc8), QColor(0xf0, 0xe4, 0x42), QColor(0xff, 0x7f, 0x50),
                                  QColor(0x9a, 0x8c, 0xff), QColor(0xcc, 0x66, 0x77)};
    const int i = ((index % kConfigColors) + kConfigColors) % kConfigColors;
    return isDark(palette) ? dark[i] : light[i];
}

QCPScatterStyle::ScatterShape configMarker(int index)
{
    static const QCPScatterStyle::ScatterShape shapes[] = {
        QCPScatterStyle::ssDisc,    QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,  QCPScatterStyle::ssTriangleInverted,
        QCPScatterStyle::ssPlus,    QCPScatterStyle::ssStar};
    return shapes[((index % kConfigColors) + kConfigColors) % kConfigColors];
}

QColor accentColor(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28);
}

QColor activationColor(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xf0, 0xe4, 0x42) : QColor(0x8a, 0x6d, 0x00);
}

} // namespace quantscope::theme
