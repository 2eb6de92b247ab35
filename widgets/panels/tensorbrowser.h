// SPDX-License-Identifier: MIT
#pragma once
/// \file tensorbrowser.h
/// The tensor browser dock's content: filter box (wildcard or regular expression), the tensor
/// tree with multi-selection, and a context menu to pair an activation with the weights.
#include "tensortreemodel.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTreeView;

namespace quantscope {

class TensorFilterProxy;
class TensorTreeModel;

class TensorBrowser : public QWidget {
    Q_OBJECT
public:
    explicit TensorBrowser(QWidget *parent = nullptr);

    void setEntries(QList<TensorListEntry> entries);
    TensorTreeModel *model() const { return m_model; }
    TensorFilterProxy *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }

    /// Selected tensors (a selected group stands for every tensor below it), in model order.
    QStringList selectedTensors() const;
    /// Selects these tensors (unknown names are ignored) and scrolls to the first.
    void setSelectedTensors(const QStringList &names);

    /// Sets the filter as if typed; `regex` picks the syntax.
    void setFilter(const QString &pattern, bool regex);
    void focusFilter();

    /// The tensor marked as activation ("" none).
    void setActivation(const QString &tensorName);

signals:
    void selectionChanged(const QStringList &tensors);
    /// The user asked to pair `tensorName` as the activation ("" to clear).
    void activationRequested(const QString &tensorName);
    /// Enter / double click: run the quantizers on the selection.
    void runRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyFilter();
    void showContextMenu(const QPoint &pos);
    void updateStatus();
    int shownTensorCount() const;

    TensorTreeModel *m_model = nullptr;
    TensorFilterProxy *m_proxy = nullptr;
    QTreeView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QComboBox *m_syntax = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace quantscope
