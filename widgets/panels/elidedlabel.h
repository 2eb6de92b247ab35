// SPDX-License-Identifier: MIT
#pragma once
/// \file elidedlabel.h
/// A one-line label that never widens its window: its minimum width is a few characters, and
/// when the text does not fit it is elided ("…") with the whole text in the tooltip (issue 42:
/// the status bar's and the views' long labels made the window 2064 px wide).
#include <QLabel>

namespace quantscope {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr);
    explicit ElidedLabel(const QString &text, QWidget *parent = nullptr);

    /// The whole text (text() is what is shown, elided or not).
    void setFullText(const QString &text);
    const QString &fullText() const noexcept { return m_full; }
    /// A tooltip shown with the whole text when the label is elided.
    void setExtraToolTip(const QString &tip);
    bool isElided() const noexcept { return m_elided; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void relayout();

    QString m_full;
    QString m_extraTip;
    bool m_elided = false;
};

} // namespace quantscope
