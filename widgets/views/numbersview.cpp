// SPDX-License-Identifier: MIT
#include "numbersview.h"

#include "numbersmodel.h"
#include "qtstring.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QTableView>
#include <QVBoxLayout>

namespace quantscope {

namespace {
bool writeFile(const QString &file, const QByteArray &bytes, QString *error)
{
    QSaveFile out(file);
    const bool ok = out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size() && out.commit();
    if (!ok && error)
        *error = QCoreApplication::translate("quantscope::NumbersView", "Could not write “%1”: %2")
                     .arg(QDir::toNativeSeparators(file), out.errorString());
    return ok;
}
} // namespace

NumbersView::NumbersView(QWidget *parent) : QWidget(parent)
{
    m_model = new NumbersModel(this);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    auto *copy = new QPushButton(QIcon::fromTheme(QStringLiteral("edit-copy")), tr("&Copy"), this);
    copy->setToolTip(tr("Copy the selected cells (all when none is selected) as tab-separated "
                        "text at full precision"));
    auto *csv = new QPushButton(tr("Export C&SV…"), this);
    auto *json = new QPushButton(tr("Export &JSON…"), this);
    json->setToolTip(tr("The same keys as quantscope-cli quantize --json"));
    bar->addStretch(1);
    bar->addWidget(copy);
    bar->addWidget(csv);
    bar->addWidget(json);
    layout->addLayout(bar);

    m_stored = new QLabel(this);
    m_stored->setWordWrap(true);
    m_stored->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stored->hide();
    layout->addWidget(m_stored);

    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    layout->addWidget(m_table, 1);

    auto *copyAction = new QAction(tr("Copy"), m_table);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_table->addAction(copyAction);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(copyAction, &QAction::triggered, this, &NumbersView::copySelection);
    connect(copy, &QPushButton::clicked, this, &NumbersView::copySelection);
    connect(csv, &QPushButton::clicked, this, [this] { askAndExport(false); });
    connect(json, &QPushButton::clicked, this, [this] { askAndExport(true); });
    connect(m_model, &QAbstractItemModel::modelReset, this, &NumbersView::updateStored);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this, &NumbersView::updateStored);
}

void NumbersView::copySelection()
{
    auto cells = m_table->selectionModel()->selectedIndexes();
    if (cells.isEmpty())
        for (int r = 0; r < m_model->rowCount(); ++r)
            for (int c = 0; c < m_model->columnCount(); ++c)
                cells << m_model->index(r, c);
    QApplication::clipboard()->setText(m_model->toTsv(cells));
}

bool NumbersView::exportCsv(const QString &file, QString *error)
{
    return writeFile(file, m_model->toCsv().toUtf8(), error);
}

bool NumbersView::exportJson(const QString &file, QString *error)
{
    return writeFile(file, m_model->toJson(), error);
}

void NumbersView::askAndExport(bool json)
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, json ? tr("Export Numbers as JSON") : tr("Export Numbers as CSV"),
                                   settings.value(QStringLiteral("lastExportDir")).toString(),
                                   json ? tr("JSON files (*.json)") : tr("CSV tables (*.csv)"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(json ? QStringLiteral("json") : QStringLiteral("csv"));
    dialog->selectFile(json ? QStringLiteral("numbers.json") : QStringLiteral("numbers.csv"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this, json](const QString &file) {
        QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(file).absolutePath());
        QString error;
        const bool ok = json ? exportJson(file, &error) : exportCsv(file, &error);
        if (!ok) {
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Export Failed"), error, QMessageBox::Close, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
    });
    dialog->open();
}

void NumbersView::setStoredSchemes(QHash<QString, QString> schemes)
{
    m_schemes = std::move(schemes);
    updateStored();
}

void NumbersView::updateStored()
{
    const QModelIndex current = m_table->currentIndex();
    QStringList lines;
    QStringList seen;
    for (int c = 0; c < m_model->columnCount(); ++c) {
        const QuantizeOutcome *o = m_model->outcomeAt(c);
        if (!o || (current.isValid() && c != current.column()))
            continue;
        const QString tensor = fromStd(o->tensor);
        const auto it = m_schemes.constFind(tensor);
        if (seen.contains(tensor) || it == m_schemes.constEnd())
            continue;
        seen << tensor;
        lines << tr("%1 — %2").arg(tensor, *it);
    }
    m_stored->setText(lines.join(QLatin1Char('\n')));
    m_stored->setVisible(!lines.isEmpty());
}

} // namespace quantscope
