// SPDX-License-Identifier: MIT
#include "elidedlabel.h"

#include "languageswitch.h"

#include <QEvent>
#include <QResizeEvent>

namespace quantscope {

ElidedLabel::ElidedLabel(QWidget *parent) : ElidedLabel(QString(), parent)
{
}

ElidedLabel::ElidedLabel(const QString &text, QWidget *parent) : QLabel(parent)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setFullText(text);
}

void ElidedLabel::setFullText(const QString &text)
{
    m_full = text;
    updateGeometry();
    relayout();
}

void ElidedLabel::setExtraToolTip(const QString &tip)
{
    m_extraTip = tip;
    relayout();
}

QSize ElidedLabel::minimumSizeHint() const
{
    // A few characters and the ellipsis: enough to see that there is text.
    const QSize hint = QLabel::minimumSizeHint();
    return {std::min(hint.width(), fontMetrics().horizontalAdvance(QStringLiteral("MMMMM…"))), hint.height()};
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin() + m.left() + m.right() + 2,
            QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    relayout();
}

void ElidedLabel::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        relayout();
    if (event->type() == QEvent::LanguageChange) {
        // The whole text, not the elided one, is what the translator gave.
        m_full = language::retranslated(m_full, this);
        m_extraTip = language::retranslated(m_extraTip, this);
        updateGeometry();
        relayout();
    }
}

void ElidedLabel::relayout()
{
    const int room = contentsRect().width() - 2 * margin();
    const QString shown = fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(room, 0));
    m_elided = shown != m_full;
    if (text() != shown)
        QLabel::setText(shown);
    QString tip = m_elided ? m_full : QString();
    if (!m_extraTip.isEmpty())
        tip = tip.isEmpty() ? m_extraTip : tip + QStringLiteral("\n\n") + m_extraTip;
    setToolTip(tip);
}

} // namespace quantscope
