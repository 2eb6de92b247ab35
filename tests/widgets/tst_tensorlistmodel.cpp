// SPDX-License-Identifier: MIT
#include "tensorlistmodel.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using quantscope::TensorListEntry;
using quantscope::TensorListModel;

namespace {
QList<TensorListEntry> sampleEntries()
{
    return {
        {QStringLiteral("model.layers.0.self_attn.q_proj.weight"),
         QStringLiteral("BF16"),
         {1024, 1024},
         2u * 1024u * 1024u,
         QString()},
        {QStringLiteral("model.layers.0.mlp.experts.3.down_proj.weight_scale"),
         QStringLiteral("F32"),
         {},
         4u,
         QString()},
        {QStringLiteral("model.embed_tokens.weight"),
         QStringLiteral("F8_E4M3"),
         {32000, 1024},
         32000u * 1024u,
         QString()},
        {QStringLiteral("model.norm.weight"), QStringLiteral("F16"), {0}, 0u, QString()},
    };
}
} // namespace

class TestTensorListModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void emptyModel()
    {
        TensorListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(TensorListModel::ColumnCount));
        QCOMPARE(model.headerData(TensorListModel::NameColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Name"));
        QCOMPARE(model.headerData(TensorListModel::SizeColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Size"));
        QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
        QVERIFY(!model.headerData(TensorListModel::ColumnCount, Qt::Horizontal).isValid());
    }

    void setEntriesResetsAndDisplays()
    {
        TensorListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setEntries(sampleEntries());
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(), 4);
        // A table: no children anywhere.
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        QCOMPARE(model.columnCount(model.index(0, 0)), 0);

        const auto display = [&](int row, int column) {
            return model.index(row, column).data(Qt::DisplayRole).toString();
        };
        QCOMPARE(display(0, TensorListModel::NameColumn),
                 QStringLiteral("model.layers.0.self_attn.q_proj.weight"));
        QCOMPARE(display(0, TensorListModel::DTypeColumn), QStringLiteral("BF16"));
        QCOMPARE(display(0, TensorListModel::ShapeColumn), QStringLiteral("1024 × 1024"));
        QCOMPARE(display(0, TensorListModel::SizeColumn), QStringLiteral("2.00 MiB"));
        QCOMPARE(display(1, TensorListModel::ShapeColumn), QStringLiteral("scalar"));
        QCOMPARE(display(1, TensorListModel::SizeColumn), QStringLiteral("4 bytes"));
        QCOMPARE(display(3, TensorListModel::ShapeColumn), QStringLiteral("0"));

        QCOMPARE(model.index(2, TensorListModel::SizeColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("32768000 bytes"));
        QCOMPARE(model.index(2, TensorListModel::ShapeColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("32768000 elements"));
        QCOMPARE(model.index(2, TensorListModel::SizeColumn).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        for (int c = 0; c < TensorListModel::ColumnCount; ++c)
            QCOMPARE(model.index(2, c).data(TensorListModel::TensorNameRole).toString(),
                     QStringLiteral("model.embed_tokens.weight"));

        model.setEntries({});
        QCOMPARE(reset.size(), 2);
        QCOMPARE(model.rowCount(), 0);
        model.setEntries(sampleEntries());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.index(0, 0).isValid());
    }

    void sortRoleSortsNumerically()
    {
        TensorListModel model;
        model.setEntries(sampleEntries());
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(TensorListModel::SortRole);

        const auto namesInOrder = [&] {
            QStringList names;
            for (int r = 0; r < proxy.rowCount(); ++r)
                names << proxy.index(r, 0).data(TensorListModel::TensorNameRole).toString();
            return names;
        };
        proxy.sort(TensorListModel::SizeColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(),
                 (QStringList{QStringLiteral("model.embed_tokens.weight"),
                              QStringLiteral("model.layers.0.self_attn.q_proj.weight"),
                              QStringLiteral("model.layers.0.mlp.experts.3.down_proj.weight_scale"),
                              QStringLiteral("model.norm.weight")}));
        // Shapes sort by element count: scalar (1) after the empty tensor (0).
        proxy.sort(TensorListModel::ShapeColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder().first(), QStringLiteral("model.norm.weight"));
        QCOMPARE(namesInOrder().last(), QStringLiteral("model.embed_tokens.weight"));

        // Resetting the source keeps the proxy consistent (the tester checks the signals).
        model.setEntries(sampleEntries().mid(0, 2));
        QCOMPARE(proxy.rowCount(), 2);
    }

    void filterByNameWildcard()
    {
        TensorListModel model;
        model.setEntries(sampleEntries());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setFilterKeyColumn(TensorListModel::NameColumn);
        proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
        proxy.setFilterWildcard(QStringLiteral("LAYERS.0.*proj"));
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setFilterWildcard(QStringLiteral("experts.3"));
        QCOMPARE(proxy.rowCount(), 1);
    }
};

QTEST_MAIN(TestTensorListModel)
#include "tst_tensorlistmodel.moc"
