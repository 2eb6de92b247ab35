// SPDX-License-Identifier: MIT
#pragma once
/// \file quantizerpanel.h
/// The quantizer panel: one to four configurations, one edited at a time in a form that shows
/// only the fields its method has (from the engine's spec schema, SpecField: int → spin box,
/// enum → combo box, bool → check box), the others as compact cards (colour chip, label, bits
/// per weight) to click, duplicate, reorder or remove; toolkit-named presets; the device (Auto /
/// CPU / GPU), histogram options and Run. Rebuilding the form keeps its scroll position.
#include "results/results.h"
#include "quant/quantizer.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QComboBox;
class QFrame;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QToolButton;
class QVBoxLayout;

namespace quantscope {

class ElidedLabel;

class QuantizerPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxConfigurations = 4;

    /// A configuration named after the toolkit recipe it reproduces ("NVFP4", "HQQ 4-bit g64").
    struct Preset {
        QString name;
        nlohmann::json spec;
    };
    /// The presets offered by the panel, in menu order.
    static std::vector<Preset> presets();

    /// `methods`: quantizerMethods() (or a test's list). Starts with one configuration of the
    /// first method with its defaults.
    explicit QuantizerPanel(std::vector<MethodInfo> methods, QWidget *parent = nullptr);

    const std::vector<MethodInfo> &methods() const noexcept { return m_methods; }

    /// The configurations with full specs (defaults + edits), in card order.
    std::vector<JobConfig> configurations() const;
    /// Replaces the configurations. Specs of unknown methods are skipped and returned as
    /// messages; unknown or bad fields keep the method's defaults.
    QStringList setConfigurations(const std::vector<JobConfig> &configs);
    int configurationCount() const { return static_cast<int>(m_configs.size()); }
    /// Adds a configuration of `method` ("" = a copy of the current one); false when four exist.
    bool addConfiguration(const QString &method = {});
    /// Adds the preset `name` (presets()) as a configuration labelled with its name; false when
    /// four exist or there is no such preset.
    bool addPreset(const QString &name);
    /// Adds a copy of configuration `index` after the last one and edits it.
    bool duplicateConfiguration(int index);
    /// Moves configuration `from` to position `to` (its colour follows the position).
    bool moveConfiguration(int from, int to);
    void removeConfiguration(int index);
    /// The configuration edited in the form.
    int currentIndex() const noexcept { return m_current; }
    void setCurrentIndex(int index);
    /// Why configuration `index`'s spec is refused by the engine ("" when it is valid).
    QString validationError(int index) const;
    /// Sets field `key` of configuration `index` as its editor would (the Scale-constant view's
    /// click sets c); false when there is no such configuration or its method lacks the field.
    /// Emits configurationsChanged().
    bool setSpecValue(int index, const QString &key, const nlohmann::json &value);
    /// The generated editor of a field of configuration `index`, which becomes the one edited
    /// (nullptr when its method lacks the field or it does not apply).
    QWidget *editor(int index, const QString &key);
    /// Configuration `index`'s card (nullptr when there is none).
    QFrame *card(int index) const;
    /// The card's bits per weight text ("" until measured).
    QString cardBits(int index) const;

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

    /// The scroll area of the form (vertical only: the panel never needs more width than a
    /// field's label and editor).
    QScrollArea *formArea() const { return m_scroll; }

signals:
    void runRequested();
    void cancelRequested();
    void configurationsChanged();
    void activationClearRequested();

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Config {
        QString name;
        int method = 0;
        nlohmann::json spec;
        QString error;
        /// Bits per weight measured on the reference weight ("" while measuring), and the
        /// measurement's generation (a newer edit drops an older result).
        QString bits;
        int bitsGeneration = 0;
    };

    void rebuildCards();
    void updateCard(int index);
    void rebuildForm();
    void changed(int index, bool measure = true);
    void measureBits(int index);
    void validate(Config &config);
    QWidget *makeEditor(int configIndex, const SpecField &field, QWidget *parent);
    QString nextName() const;
    int methodIndex(const std::string &method) const;
    const SpecField *fieldOf(int method, const std::string &key) const;

    std::vector<MethodInfo> m_methods;
    std::vector<Config> m_configs;
    int m_current = 0;
    QComboBox *m_device = nullptr;
    QSpinBox *m_bins = nullptr;
    QCheckBox *m_symlog = nullptr;
    QLabel *m_activation = nullptr;
    QToolButton *m_clearActivation = nullptr;
    QWidget *m_cardsBox = nullptr;
    QVBoxLayout *m_cardsLayout = nullptr;
    std::vector<QFrame *> m_cards;
    QComboBox *m_presets = nullptr;
    QToolButton *m_add = nullptr;
    QScrollArea *m_scroll = nullptr;
    QWidget *m_form = nullptr;
    QLabel *m_error = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    /// key → editor of the current form.
    std::vector<std::pair<std::string, QWidget *>> m_editors;
};

} // namespace quantscope
