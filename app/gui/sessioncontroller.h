// SPDX-License-Identifier: MIT
#pragma once
/// \file sessioncontroller.h
/// Saving and opening .qscope sessions (results/session.h): what the window shows — the document
/// and its pairing, the selection, the panel's configurations, the results and the view — as
/// one file. Opening restores the configurations and results at once and reopens the
/// checkpoint in the background, which then restores the selection and the pairing.
#include "results/session.h"

#include <QObject>
#include <QString>

class QTabWidget;

namespace quantscope {

class LayersView;

class DistributionView;
class JobController;
class LoadController;
class LogView;
class QuantizerPanel;
class TensorBrowser;

class SessionController : public QObject {
    Q_OBJECT
public:
    /// The widgets whose state a session holds, and the controllers of the document and of the
    /// results.
    struct Parts {
        LoadController *loads = nullptr;
        JobController *jobs = nullptr;
        TensorBrowser *browser = nullptr;
        QuantizerPanel *panel = nullptr;
        DistributionView *distribution = nullptr;
        QTabWidget *tabs = nullptr;
        LogView *log = nullptr;
        LayersView *layers = nullptr; ///< its scan report is stored too
    };
    /// `parent` owns the controller.
    SessionController(QObject *parent, const Parts &parts);

    /// What the window shows now, as a session.
    Session current() const;
    /// Writes the session atomically. False with a reason in `error` (also shown).
    bool save(const QString &file, QString *error = nullptr);
    /// Restores a session; false (and the error shown) when it cannot be read.
    bool open(const QString &file);
    /// The session file last saved or opened ("" none).
    const QString &file() const noexcept { return m_file; }

signals:
    /// The session was saved to or opened from file() (the window's title names it).
    void fileChanged();
    /// A session file was opened (for the recent files).
    void opened(const QString &file);
    /// A short message for the status bar.
    void statusMessage(const QString &text);
    /// A failure to show in a message box.
    void errorOccurred(const QString &title, const QString &text, const QString &details);

private:
    Parts m_parts;
    QString m_file;
};

} // namespace quantscope
