// SPDX-License-Identifier: MIT
#pragma once
/// \file kvview.h
/// The KV tab (docs/user-guide.md "The KV tab"): the KV-cache lab (core/kv/kv_lab.h) on the K/V
/// caches of the paired capture or of a K/V file. Controls: the plan's K and V schemes (with c
/// for constOpt), the boundary layers kept in BF16, the KV memory for the context figure, Run and
/// Cancel. Shows a table with a row per scheme (and the plan's, highlighted), the per-layer ×
/// head K and V MSE of a chosen scheme as a coloured table, the c sweep, the distortion curves,
/// K's kurtosis per layer and the codebooks (kvplot.h). Computes nothing: the app's controller
/// runs the lab and hands over its report.
#include "kv/kv_lab.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace quantscope {

class KvPlot;

class KvView : public QWidget {
    Q_OBJECT
public:
    /// Columns of the scheme table.
    enum Column { Scheme, KRel, VRel, Kl, MaxDp, OutRel, BytesPerToken, ContextTokens, ColumnCount };
    /// The exact value behind a number cell (a double; absent for "—").
    static constexpr int ValueRole = Qt::UserRole + 1;

    explicit KvView(QWidget *parent = nullptr);

    /// The K/V file the lab runs on ("" none) and how it came (the paired capture, a file).
    void setSource(const QString &path, const QString &origin);
    QString source() const { return m_sourcePath; }

    /// The plan's schemes (constOpt with the c of its spin box unless fit).
    KvScheme kScheme() const;
    KvScheme vScheme() const;
    /// Selects a scheme by its name in defaultKvSchemes() (false when not listed).
    bool setKScheme(const QString &name);
    bool setVScheme(const QString &name);
    int boundary() const;
    double memoryGiB() const;
    /// The lab's options from the controls (every default scheme, the plan, boundary, memory).
    KvLabOptions options() const;

    /// A run started (`what`) or ended; Run and Cancel follow.
    void setRunning(bool running, const QString &what = QString());
    void setProgress(double fraction);
    void setStatus(const QString &text);
    /// An error under the controls ("" clears).
    void showError(const QString &message);
    /// The lab's report (null clears it: the views say what to do next).
    void setReport(std::shared_ptr<const KvLabReport> report);
    std::shared_ptr<const KvLabReport> report() const { return m_report; }

    QTableWidget *schemeTable() const { return m_table; }
    QTableWidget *layerTable() const { return m_layers; }
    QComboBox *layerSchemeCombo() const { return m_layerScheme; }
    QComboBox *kSchemeCombo() const { return m_k; }
    QComboBox *vSchemeCombo() const { return m_v; }
    QDoubleSpinBox *kCSpin() const { return m_kC; }
    QDoubleSpinBox *vCSpin() const { return m_vC; }
    QSpinBox *boundarySpin() const { return m_boundary; }
    QDoubleSpinBox *memorySpin() const { return m_memory; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *openButton() const { return m_open; }
    QLabel *sourceLabel() const { return m_source; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *errorLabel() const { return m_error; }
    /// The report's notes (no queries, rotation blocks, …) and the summary line.
    QLabel *notesLabel() const { return m_notes; }
    KvPlot *sweepPlot() const { return m_sweep; }
    KvPlot *distortionPlot() const { return m_distortion; }
    KvPlot *kurtosisPlot() const { return m_kurtosis; }
    KvPlot *codebookPlot() const { return m_codebook; }
    /// The table row of the plan (−1 without a report).
    int planRow() const;

signals:
    void runRequested();
    void cancelRequested();
    /// "Open KV Cache…" (the window's File menu does the same).
    void openRequested();

private:
    void fillSchemeTable();
    void fillLayerTable();
    void updateEmptyStates();
    /// Enables a c spin box for constOpt with a given c; `value`: also shows the scheme's c.
    void updateCSpin(QComboBox *combo, QDoubleSpinBox *spin, bool value);
    KvScheme schemeOf(const QComboBox *combo, const QDoubleSpinBox *spin) const;

    QString m_sourcePath;
    bool m_running = false;
    std::shared_ptr<const KvLabReport> m_report;
    QLabel *m_source = nullptr;
    QPushButton *m_open = nullptr;
    QComboBox *m_k = nullptr;
    QComboBox *m_v = nullptr;
    QDoubleSpinBox *m_kC = nullptr;
    QDoubleSpinBox *m_vC = nullptr;
    QSpinBox *m_boundary = nullptr;
    QDoubleSpinBox *m_memory = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_notes = nullptr;
    QTableWidget *m_table = nullptr;
    QComboBox *m_layerScheme = nullptr;
    QTableWidget *m_layers = nullptr;
    KvPlot *m_sweep = nullptr;
    KvPlot *m_distortion = nullptr;
    KvPlot *m_kurtosis = nullptr;
    KvPlot *m_codebook = nullptr;
};

} // namespace quantscope
