// SPDX-License-Identifier: MIT
#pragma once
/// \file modelview.h
/// The Model tab: what quantization does to the model itself, measured through the Python
/// bridge (docs/user-guide.md "The Model view"). Inputs (the model folder, calibration text or
/// tokens, samples × seq, the paired capture, the interpreter and its check); "Measure layers"
/// plots each module's output-aware error against the KL it causes alone, with the Spearman
/// agreement of either proxy; "Measure budget points" plots the budget's predicted error and
/// the measured KL against MB, with a table of the points. Computes nothing: the app's
/// controller runs the jobs and hands over prepared data (core/bridge/model_view.h).
#include "bridge/model_view.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace quantscope {

class BudgetPointsPlot;
class ProxyScatterPlot;

class ModelView : public QWidget {
    Q_OBJECT
public:
    /// Where "Measure layers" takes its recipe from.
    enum class RecipeSource { RecipeTab, BudgetTab, File };

    explicit ModelView(QWidget *parent = nullptr);

    QString modelPath() const;
    void setModelPath(const QString &path);
    /// Calibration data: UTF-8 text, or token ids when it ends in .npy.
    QString dataPath() const;
    void setDataPath(const QString &path);
    int samples() const;
    int seq() const;
    QString python() const;
    void setPython(const QString &python);
    RecipeSource recipeSource() const;
    QString recipeFile() const;
    /// Budget points to measure (5–8).
    int pointCount() const;
    /// The paired capture ("" none) and its summary.
    void setCapture(const QString &path, const QString &summary);

    /// The interpreter check's outcome, shown beside its button.
    void setCheckResult(const QString &text, bool ok);
    /// A job started (`what`) or ended; the measure buttons and Cancel follow.
    void setRunning(bool running, const QString &what = QString());
    void setProgress(double fraction, const QString &what);
    /// A bridge error: its kind (missing-package, load, …) and message; "" clears.
    void showError(const QString &kind, const QString &message);
    /// A line under the buttons (finished, cancelled, …).
    void setStatus(const QString &text);

    /// The per-layer measurement (an empty one clears it).
    void setLayerMeasures(const LayerMeasures &measures);
    /// The budget points so far (predicted; measured ones with their KL) and what `predicted` is.
    void setBudgetPoints(const std::vector<BudgetPoint> &points, const QString &objective);

    ProxyScatterPlot *layerPlot() const { return m_layerPlot; }
    BudgetPointsPlot *pointsPlot() const { return m_pointsPlot; }
    QTableWidget *pointsTable() const { return m_table; }
    QLabel *layerSummary() const { return m_layerSummary; }
    QLabel *pointsSummary() const { return m_pointsSummary; }
    QLabel *errorLabel() const { return m_error; }
    QLabel *checkLabel() const { return m_checkResult; }
    QPushButton *checkButton() const { return m_check; }
    QPushButton *captureButton() const { return m_captureRun; }
    QPushButton *measureLayersButton() const { return m_measureLayers; }
    QPushButton *measurePointsButton() const { return m_measurePoints; }
    QPushButton *cancelButton() const { return m_cancel; }

signals:
    void checkRequested();
    /// Run the model on the calibration data and write a capture (then paired).
    void captureRequested();
    void measureLayersRequested();
    void measurePointsRequested();
    void cancelRequested();
    /// The interpreter line was edited (the controller keeps it as a setting).
    void pythonChanged(const QString &python);

private:
    QLineEdit *m_model = nullptr;
    QLineEdit *m_data = nullptr;
    QSpinBox *m_samples = nullptr;
    QSpinBox *m_seq = nullptr;
    QLabel *m_capture = nullptr;
    QLineEdit *m_python = nullptr;
    QPushButton *m_check = nullptr;
    QLabel *m_checkResult = nullptr;
    QComboBox *m_recipe = nullptr;
    QLineEdit *m_recipeFile = nullptr;
    QSpinBox *m_points = nullptr;
    QPushButton *m_captureRun = nullptr;
    QPushButton *m_measureLayers = nullptr;
    QPushButton *m_measurePoints = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    ProxyScatterPlot *m_layerPlot = nullptr;
    QLabel *m_layerSummary = nullptr;
    BudgetPointsPlot *m_pointsPlot = nullptr;
    QLabel *m_pointsSummary = nullptr;
    QTableWidget *m_table = nullptr;
};

} // namespace quantscope
