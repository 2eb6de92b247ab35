// SPDX-License-Identifier: MIT
#pragma once
/// \file quantizerpanel.h
/// The quantizer panel: up to four configurations side by side, each a method from the engine
/// and a form GENERATED from that method's spec fields (int → spin box, enum → combo box,
/// bool → check box); the device (Auto / CPU / GPU), histogram options and Run.
#include "results/results.h"
#include "quant/quantizer.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QToolButton;

namespace quantscope {

class QuantizerPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxConfigurations = 4;

    /// `methods`: quantizerMethods() (or a test's list). Starts with one configuration of the
    /// first method with its defaults.
    explicit QuantizerPanel(std::vector<MethodInfo> methods, QWidget *parent = nullptr);

    const std::vector<MethodInfo> &methods() const noexcept { return m_methods; }

    /// The configurations with full specs (defaults + edits), in column order.
    std::vector<JobConfig> configurations() const;
    /// Replaces the configurations. Specs of unknown methods are skipped and returned as
    /// messages; unknown or bad fields keep the method's defaults.
    QStringList setConfigurations(const std::vector<JobConfig> &configs);
    int configurationCount() const { return static_cast<int>(m_configs.size()); }
    /// Adds a configuration of `method` ("" = the first method); false when four exist.
    bool addConfiguration(const QString &method = {});
    void removeConfiguration(int index);
    /// Why configuration `index`'s spec is refused by the engine ("" when it is valid).
    QString validationError(int index) const;
    /// Sets field `key` of configuration `index` as its editor would (the Scale-constant view's
    /// click sets c); false when there is no such configuration or its method lacks the field.
    /// Emits configurationsChanged().
    bool setSpecValue(int index, const QString &key, const nlohmann::json &value);
    /// The generated editor of a field (nullptr when that configuration's method lacks it).
    QWidget *editor(int index, const QString &key) const;

    /// "auto", "cpu" or "gpu".
    QString device() const;
    void setDevice(const QString &device);
    /// Whether "GPU" can be picked; `reason` (its tooltip) says why not, or what the GPU runs.
    void setGpuAvailable(bool available, const QString &reason);
    int bins() const;
    void setBins(int bins);
    bool symlog() const;
    void setSymlog(bool on);

    /// The paired activation shown in the panel ("" none), and the file it comes from when it
    /// is not the checkpoint's.
    void setActivation(const QString &tensorName, const QString &file = {});
    /// While a job runs, Run stays available (a new run replaces the old one).
    void setRunning(bool running);

    /// The scroll area of the configuration columns (the row labels and "+ Add" stay outside
    /// it, always visible).
    QScrollArea *columnsArea() const { return m_columns; }

signals:
    void runRequested();
    void cancelRequested();
    void configurationsChanged();
    void activationClearRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Config {
        QString name;
        int method = 0;
        nlohmann::json spec;
        QString error;
    };

    void rebuild();
    void validate(Config &config);
    QWidget *makeEditor(int configIndex, const SpecField &field, QWidget *parent);
    QString nextName() const;
    int methodIndex(const std::string &method) const;
    const SpecField *fieldOf(int method, const std::string &key) const;

    std::vector<MethodInfo> m_methods;
    std::vector<Config> m_configs;
    QComboBox *m_device = nullptr;
    QSpinBox *m_bins = nullptr;
    QCheckBox *m_symlog = nullptr;
    QLabel *m_activation = nullptr;
    QToolButton *m_clearActivation = nullptr;
    QScrollArea *m_scroll = nullptr;
    QWidget *m_grid = nullptr;
    QScrollArea *m_columns = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    /// (config, key) → editor of the current grid.
    std::vector<std::vector<std::pair<std::string, QWidget *>>> m_editors;
};

} // namespace quantscope
