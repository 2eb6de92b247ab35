// SPDX-License-Identifier: MIT
#pragma once
/// \file specform.h
/// One quantizer spec as a form generated from its method's schema (MethodInfo::fields): the
/// method, then one editor per field that applies (int → spin box, enum → combo box in words,
/// bool → check box, number → double spin box, a nested spec — a ProgressiveSpec stage — → a
/// nested SpecForm of the methods the field allows) and, optionally, the spec's JSON read-only
/// below. The Recipe tab edits a rule's specs with it and the quantizer panel a configuration's
/// stages (issue 42: no typed JSON in the window). It stores and reports; the owner validates.
#include "quant/quantizer.h"

#include <QWidget>
#include <nlohmann/json.hpp>
#include <vector>

class QComboBox;
class QFormLayout;
class QPlainTextEdit;

namespace quantscope {

class SpecForm : public QWidget {
    Q_OBJECT
public:
    /// `methods`: those the method box offers (quantizerMethods(), or a stage's few).
    explicit SpecForm(std::vector<MethodInfo> methods, bool showJson = true, QWidget *parent = nullptr);

    /// Shows `spec` (a method the form does not offer shows its fields as the first method's);
    /// no specChanged.
    void setSpec(const nlohmann::json &spec);
    const nlohmann::json &spec() const noexcept { return m_spec; }
    /// The editor of field `key` (nullptr when it does not apply), the method box.
    QWidget *editor(const QString &key) const;
    QComboBox *methodBox() const { return m_method; }
    /// The read-only JSON view (nullptr without one).
    QPlainTextEdit *jsonView() const { return m_json; }

signals:
    /// The user edited a field or the method (a new method starts from its defaults).
    void specChanged(const nlohmann::json &spec);

private:
    const MethodInfo *method() const;
    void rebuild();
    QWidget *makeEditor(const SpecField &field);
    void edited();

    std::vector<MethodInfo> m_methods;
    nlohmann::json m_spec = nlohmann::json::object();
    QComboBox *m_method = nullptr;
    QWidget *m_fields = nullptr;
    QFormLayout *m_form = nullptr;
    QPlainTextEdit *m_json = nullptr;
    std::vector<std::pair<std::string, QWidget *>> m_editors;
};

} // namespace quantscope
