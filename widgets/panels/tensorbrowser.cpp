// SPDX-License-Identifier: MIT
#include "tensorbrowser.h"

#include "tensorfilterproxy.h"
#include "tensortreemodel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <functional>
#include <QSet>
#include <QTreeView>
#include <QVBoxLayout>

namespace quantscope {

TensorBrowser::TensorBrowser(QWidget *parent) : QWidget(parent)
{
    m_model = new TensorTreeModel(this);
    m_proxy = new TensorFilterProxy(this);
    m_proxy->setSourceModel(m_model);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setClearButtonEnabled(true);
    m_filter->setPlaceholderText(tr("Filter by name…"));
    // The hint never cut off (German and Chinese run longer): the box is at least as wide as
    // it, with room for the frame and the clear button; the tooltip repeats it.
    m_filter->setMinimumWidth(m_filter->fontMetrics().horizontalAdvance(m_filter->placeholderText()) + 36);
    m_filter->setToolTip(m_filter->placeholderText());
    m_syntax = new QComboBox(this);
    m_syntax->addItem(tr("Wildcard"));
    m_syntax->addItem(tr("Regex"));
    m_syntax->setToolTip(tr("Wildcard: * and ? (e.g. layers.*.down_proj). Regex: a regular "
                            "expression (e.g. experts\\.[0-3]\\.). Both ignore case and match "
                            "anywhere in the name."));
    top->addWidget(m_filter, 1);
    top->addWidget(m_syntax);
    layout->addLayout(top);

    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setUniformRowHeights(true); // 10⁴–10⁵ tensors
    m_view->setAlternatingRowColors(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setSortingEnabled(true);
    auto *header = m_view->header();
    header->setSortIndicatorClearable(true);
    header->setSortIndicator(-1, Qt::AscendingOrder); // file order until a column is picked
    header->setStretchLastSection(true);
    // The short columns (type, shape, size…) fit their content; names can be very long, so
    // that column keeps a width the user can drag.
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TensorTreeModel::NameColumn, QHeaderView::Interactive);
    header->resizeSection(TensorTreeModel::NameColumn, 230);
    layout->addWidget(m_view, 1);

    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true); // the dock is narrow
    layout->addWidget(m_status);

    connect(m_filter, &QLineEdit::textChanged, this, &TensorBrowser::applyFilter);
    connect(m_syntax, &QComboBox::currentIndexChanged, this, &TensorBrowser::applyFilter);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateStatus();
        emit selectionChanged(selectedTensors());
    });
    connect(m_view, &QWidget::customContextMenuRequested, this, &TensorBrowser::showContextMenu);
    connect(m_view, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        if (index.data(TensorTreeModel::IsTensorRole).toBool())
            emit runRequested();
    });
    updateStatus();
}

void TensorBrowser::setEntries(QList<TensorListEntry> entries)
{
    m_model->setEntries(std::move(entries));
    // Open the first levels so that a user sees layers rather than one "model" row.
    m_view->expandToDepth(1);
    updateStatus();
}

QStringList TensorBrowser::selectedTensors() const
{
    QSet<QString> seen;
    QStringList out;
    const auto rows = m_view->selectionModel()->selectedRows(TensorTreeModel::NameColumn);
    for (const auto &proxyIndex : rows) {
        const auto source = m_proxy->mapToSource(proxyIndex);
        for (const auto &name : m_model->tensorsUnder(source)) {
            if (!seen.contains(name)) {
                seen.insert(name);
                out.append(name);
            }
        }
    }
    // Model order, not click order: results and sessions stay stable.
    QStringList ordered;
    for (const auto &e : m_model->entries())
        if (seen.contains(e.name))
            ordered.append(e.name);
    return ordered;
}

void TensorBrowser::setSelectedTensors(const QStringList &names)
{
    QItemSelection selection;
    QModelIndex first;
    for (const auto &name : names) {
        const auto proxyIndex = m_proxy->mapFromSource(m_model->indexOfTensor(name));
        if (!proxyIndex.isValid())
            continue;
        if (!first.isValid())
            first = proxyIndex;
        selection.select(proxyIndex, proxyIndex);
        for (auto p = proxyIndex.parent(); p.isValid(); p = p.parent())
            m_view->expand(p);
    }
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid()) {
        m_view->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_view->scrollTo(first);
    }
}

void TensorBrowser::setFilter(const QString &pattern, bool regex)
{
    m_syntax->setCurrentIndex(regex ? 1 : 0);
    m_filter->setText(pattern);
    applyFilter();
}

void TensorBrowser::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

void TensorBrowser::setActivation(const QString &tensorName)
{
    m_model->setActivation(tensorName);
}

void TensorBrowser::applyFilter()
{
    const auto syntax = m_syntax->currentIndex() == 1 ? TensorFilterProxy::Syntax::RegularExpression
                                                      : TensorFilterProxy::Syntax::Wildcard;
    const bool ok = m_proxy->setFilter(m_filter->text(), syntax);
    // Only an invalid pattern sets a colour of its own (its text in red); a valid one clears it,
    // so that the box follows the theme again (a copied palette would freeze today's colours).
    QPalette p;
    if (!ok)
        p.setColor(QPalette::Text, QColor(Qt::red));
    m_filter->setPalette(p);
    m_filter->setToolTip(ok ? m_filter->placeholderText()
                            : tr("Not a valid regular expression: %1").arg(m_proxy->errorString()));
    if (!m_filter->text().isEmpty())
        m_view->expandAll(); // show every match
    updateStatus();
}

void TensorBrowser::showContextMenu(const QPoint &pos)
{
    const auto index = m_view->indexAt(pos);
    // popup(), not exec(): no nested event loop.
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const auto name = index.data(TensorTreeModel::TensorNameRole).toString();
    if (!name.isEmpty()) {
        auto *pair = menu->addAction(tr("Pair as &Activation"));
        pair->setToolTip(tr("Show this tensor's channel maxima next to each weight you quantize"));
        connect(pair, &QAction::triggered, this, [this, name] { emit activationRequested(name); });
    }
    if (!m_model->activation().isEmpty()) {
        connect(menu->addAction(tr("&Unpair Activation")), &QAction::triggered, this,
                [this] { emit activationRequested(QString()); });
    }
    menu->addSeparator();
    connect(menu->addAction(tr("&Expand All")), &QAction::triggered, m_view, &QTreeView::expandAll);
    connect(menu->addAction(tr("&Collapse All")), &QAction::triggered, m_view, &QTreeView::collapseAll);
    menu->popup(m_view->viewport()->mapToGlobal(pos));
}

int TensorBrowser::shownTensorCount() const
{
    // The leaves the filter lets through (a group is shown when a tensor below it matches).
    int n = 0;
    std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
        for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
            const auto i = m_proxy->index(r, 0, parent);
            if (!i.data(TensorTreeModel::TensorNameRole).toString().isEmpty())
                ++n;
            walk(i);
        }
    };
    walk({});
    return n;
}

void TensorBrowser::updateStatus()
{
    const int total = m_model->tensorCount();
    const int shown = m_filter->text().isEmpty() ? total : shownTensorCount();
    const int selected = static_cast<int>(selectedTensors().size());
    QString text = selected > 0 ? tr("%1 of %n tensor(s) selected", nullptr, total).arg(selected)
                                : tr("%n tensor(s)", nullptr, total);
    // The count follows the filter.
    if (shown < total)
        text += QStringLiteral(" · ") + tr("%n shown", nullptr, shown);
    m_status->setText(text);
}

void TensorBrowser::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        m_model->retranslateFormats();
    QWidget::changeEvent(event);
}

} // namespace quantscope
