// SPDX-License-Identifier: MIT
// The tensor browser's tree model and its filter proxy: structure, roles, natural sorting,
// wildcard and regex filtering, all under QAbstractItemModelTester.
#include "tensorbrowser.h"
#include "tensorfilterproxy.h"
#include "tensortreemodel.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace quantscope;

namespace {
TensorListEntry entry(const char *name, const char *dtype, Shape shape, quint64 bytes,
                      const char *format = "not quantized")
{
    return {QString::fromUtf8(name), QString::fromUtf8(dtype), std::move(shape), bytes, QString::fromUtf8(format)};
}

QList<TensorListEntry> sample()
{
    return {
        entry("model.embed_tokens.weight", "BF16", {32000, 1024}, 65536000),
        entry("model.layers.0.self_attn.q_proj.weight", "BF16", {1024, 1024}, 2097152),
        entry("model.layers.10.mlp.down_proj.weight", "BF16", {1024, 4096}, 8388608),
        entry("model.layers.2.mlp.experts.3.down_proj.weight", "I32", {1024, 256}, 1048576,
              "compressed-tensors pack-quantized: INT4 sym, group 32"),
        entry("model.layers.2.mlp.experts.3.down_proj.weight_scale", "F16", {1024, 64}, 131072),
        entry("model.layers.2.mlp.experts.12.down_proj.weight", "BF16", {1024, 2048}, 4194304),
        entry("lm_head.weight", "BF16", {32000, 1024}, 65536000),
        entry("scalar", "F32", {}, 4),
    };
}

QStringList visibleTensors(const QAbstractItemModel &m, const QModelIndex &parent = {})
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const auto i = m.index(r, 0, parent);
        const auto name = i.data(TensorTreeModel::TensorNameRole).toString();
        if (!name.isEmpty())
            out << name;
        out << visibleTensors(m, i);
    }
    return out;
}

QModelIndex childByLabel(const QAbstractItemModel &m, const QModelIndex &parent, const QString &label)
{
    for (int r = 0; r < m.rowCount(parent); ++r)
        if (m.index(r, 0, parent).data().toString() == label)
            return m.index(r, 0, parent);
    return {};
}
} // namespace

class TestTensorTreeModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void treeByNamePath()
    {
        TensorTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(sample());
        QCOMPARE(model.tensorCount(), 8);
        // Top level: the "model" group, lm_head.weight and scalar (file order).
        QCOMPARE(model.rowCount(), 3);
        const auto m = childByLabel(model, {}, QStringLiteral("model"));
        QVERIFY(m.isValid());
        QCOMPARE(m.data(TensorTreeModel::IsTensorRole).toBool(), false);
        QCOMPARE(m.siblingAtColumn(TensorTreeModel::ShapeColumn).data().toString(), QStringLiteral("6 tensor(s)"));
        // model › layers › 2 › mlp › experts › 3 › down_proj.weight
        QModelIndex i = m;
        for (const char *label : {"layers", "2", "mlp", "experts", "3"}) {
            i = childByLabel(model, i, QString::fromUtf8(label));
            QVERIFY2(i.isValid(), label);
        }
        QCOMPARE(i.data(TensorTreeModel::PathRole).toString(), QStringLiteral("model.layers.2.mlp.experts.3"));
        QCOMPARE(model.rowCount(i), 2);
        const auto leaf = childByLabel(model, i, QStringLiteral("down_proj.weight"));
        QVERIFY(leaf.isValid());
        QCOMPARE(leaf.data(TensorTreeModel::TensorNameRole).toString(),
                 QStringLiteral("model.layers.2.mlp.experts.3.down_proj.weight"));
        QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::DTypeColumn).data().toString(), QStringLiteral("I32"));
        QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::ShapeColumn).data().toString(), QStringLiteral("1024 × 256"));
        QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::SizeColumn).data().toString(), QStringLiteral("1.00 MiB"));
        QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::FormatColumn).data().toString(),
                 QStringLiteral("compressed-tensors pack-quantized: INT4 sym, group 32"));
        QCOMPARE(model.rowCount(leaf), 0);
        // Groups sum their tensors' bytes.
        QCOMPARE(i.siblingAtColumn(TensorTreeModel::SizeColumn).data(TensorTreeModel::SortRole).toULongLong(),
                 quint64{1048576 + 131072});
        QCOMPARE(model.tensorsUnder(i).size(), 2);
        QCOMPARE(model.tensorsUnder({}).size(), 8);
        QCOMPARE(model.indexOfTensor(QStringLiteral("scalar")).data().toString(), QStringLiteral("scalar"));
        QVERIFY(!model.indexOfTensor(QStringLiteral("nope")).isValid());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setActivation(QStringLiteral("lm_head.weight"));
        QCOMPARE(changed.size(), 1);
        QVERIFY(model.indexOfTensor(QStringLiteral("lm_head.weight"), TensorTreeModel::FormatColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("paired activation")));
        model.setActivation(QString());
        QCOMPARE(changed.size(), 2);

        model.setEntries(sample().mid(0, 2));
        QCOMPARE(model.tensorCount(), 2);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void shapeTextNamesEveryRank()
    {
        QCOMPARE(TensorTreeModel::shapeText({1024, 1024}), QStringLiteral("1024 × 1024"));
        QCOMPARE(TensorTreeModel::shapeText({}), QStringLiteral("scalar"));
        QCOMPARE(TensorTreeModel::shapeText({0}), QStringLiteral("0"));
        QCOMPARE(TensorTreeModel::shapeText({32000, 1024, 3}), QStringLiteral("32000 × 1024 × 3"));
    }

    void filterWildcardAndRegex()
    {
        TensorTreeModel model;
        TensorFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setEntries(sample());
        QCOMPARE(visibleTensors(proxy).size(), 8);

        QVERIFY(proxy.setFilter(QStringLiteral("LAYERS.*.down_proj.weight"), TensorFilterProxy::Syntax::Wildcard));
        QCOMPARE(visibleTensors(proxy),
                 (QStringList{QStringLiteral("model.layers.10.mlp.down_proj.weight"),
                              QStringLiteral("model.layers.2.mlp.experts.3.down_proj.weight"),
                              QStringLiteral("model.layers.2.mlp.experts.3.down_proj.weight_scale"),
                              QStringLiteral("model.layers.2.mlp.experts.12.down_proj.weight")}));
        // A group name alone does not pull in its whole subtree: only matching tensors stay.
        QVERIFY(proxy.setFilter(QStringLiteral("experts.3."), TensorFilterProxy::Syntax::Wildcard));
        QCOMPARE(visibleTensors(proxy).size(), 2);

        QVERIFY(proxy.setFilter(QStringLiteral("experts\\.(3|12)\\.down_proj\\.weight$"),
                                TensorFilterProxy::Syntax::RegularExpression));
        QCOMPARE(visibleTensors(proxy).size(), 2);
        QVERIFY(proxy.setFilter(QStringLiteral("^lm_"), TensorFilterProxy::Syntax::RegularExpression));
        QCOMPARE(visibleTensors(proxy), QStringList{QStringLiteral("lm_head.weight")});

        // A broken regex is reported and filters nothing.
        QVERIFY(!proxy.setFilter(QStringLiteral("experts.(3"), TensorFilterProxy::Syntax::RegularExpression));
        QVERIFY(!proxy.errorString().isEmpty());
        QCOMPARE(visibleTensors(proxy).size(), 8);
        QVERIFY(proxy.setFilter(QString(), TensorFilterProxy::Syntax::Wildcard));
        QCOMPARE(visibleTensors(proxy).size(), 8);

        // Resetting the source under an active filter keeps the proxy consistent.
        QVERIFY(proxy.setFilter(QStringLiteral("proj"), TensorFilterProxy::Syntax::Wildcard));
        model.setEntries(sample().mid(0, 3));
        QCOMPARE(visibleTensors(proxy).size(), 2);
    }

    void naturalSort()
    {
        TensorTreeModel model;
        TensorFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setEntries(sample());
        proxy.sort(TensorTreeModel::NameColumn, Qt::AscendingOrder);
        auto layers = childByLabel(proxy, childByLabel(proxy, {}, QStringLiteral("model")), QStringLiteral("layers"));
        QStringList order;
        for (int r = 0; r < proxy.rowCount(layers); ++r)
            order << proxy.index(r, 0, layers).data().toString();
        QCOMPARE(order, (QStringList{QStringLiteral("0"), QStringLiteral("2"), QStringLiteral("10")}));
        proxy.sort(TensorTreeModel::SizeColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(proxy.rowCount() - 1, 0).data().toString(), QStringLiteral("scalar"));
    }

    void browserSelection()
    {
        TensorBrowser browser;
        QAbstractItemModelTester tester(browser.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        browser.setEntries(sample());
        QSignalSpy spy(&browser, &TensorBrowser::selectionChanged);
        const QStringList two{QStringLiteral("lm_head.weight"),
                              QStringLiteral("model.layers.0.self_attn.q_proj.weight")};
        browser.setSelectedTensors(two);
        QVERIFY(spy.size() >= 1);
        // Model order, whatever the order asked for.
        QCOMPARE(browser.selectedTensors(), (QStringList{QStringLiteral("model.layers.0.self_attn.q_proj.weight"),
                                                         QStringLiteral("lm_head.weight")}));
        // A selected group stands for every tensor below it.
        const auto experts = browser.proxy()->mapFromSource(
            browser.model()->indexOfTensor(QStringLiteral("model.layers.2.mlp.experts.3.down_proj.weight")).parent());
        browser.view()->selectionModel()->select(experts,
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(browser.selectedTensors().size(), 2);
        browser.setFilter(QStringLiteral("embed"), false);
        QCOMPARE(visibleTensors(*browser.proxy()), QStringList{QStringLiteral("model.embed_tokens.weight")});
        browser.setFilter(QStringLiteral("(unclosed"), true);
        QCOMPARE(visibleTensors(*browser.proxy()).size(), 8);
    }
};

QTEST_MAIN(TestTensorTreeModel)
#include "tst_tensortreemodel.moc"
