// SPDX-License-Identifier: MIT
#include "sessioncontroller.h"

#include "layersview.h"

#include "distributionview.h"
#include "jobcontroller.h"
#include "loadcontroller.h"
#include "logview.h"
#include "qtstring.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"
#include "coremessages.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTabWidget>
#include <exception>

namespace quantscope {

SessionController::SessionController(QObject *parent, const Parts &parts) : QObject(parent), m_parts(parts)
{
}

Session SessionController::current() const
{
    const auto &loads = *m_parts.loads;
    Session s;
    if (loads.hasDocument()) {
        const auto &request = loads.documentRequest();
        SessionSource src;
        src.demo = request.demo;
        src.path = request.demo ? std::string() : QFileInfo(request.path).absoluteFilePath().toStdString();
        src.lenient = request.lenient;
        s.checkpoint = src;
    }
    s.activation = loads.activation().toStdString();
    if (const auto &request = loads.activationRequest()) {
        SessionSource src;
        src.path = QFileInfo(request->path).absoluteFilePath().toStdString();
        src.lenient = request->lenient;
        s.activationSource = src;
    }
    if (loads.capture()) {
        SessionSource src;
        src.path = QFileInfo(loads.capturePath()).absoluteFilePath().toStdString();
        s.capture = src;
    }
    for (const auto &t : m_parts.browser->selectedTensors())
        s.selected.push_back(t.toStdString());
    const auto *panel = m_parts.panel;
    s.device = panel->device().toStdString();
    s.bins = panel->bins();
    s.symlog = panel->symlog();
    s.configs = panel->configurations();
    if (const auto results = m_parts.jobs->results())
        s.results = *results;
    if (m_parts.layers && m_parts.layers->lines())
        s.scanLines = *m_parts.layers->lines();
    const auto *distribution = m_parts.distribution;
    s.view = {{"tab", m_parts.tabs->currentIndex()},
              {"tensor", distribution->currentTensor().toStdString()},
              {"log_y", distribution->logY()},
              {"channel_axis", distribution->channelAxis()},
              {"overlap", distribution->overlapConfig().toStdString()}};
    return s;
}

bool SessionController::save(const QString &file, QString *error)
{
    // core's atomic writer (the file holds the old session or the whole new one; a temp file a
    // killed save left is removed by the next save): docs/reliability.md "Crash-safe writes".
    QString reason;
    try {
        saveSessionFile(QFile::encodeName(file).toStdString(), current());
    } catch (const std::exception &e) {
        reason = coremessages::translated(std::string(e.what()));
    }
    const auto shown = QDir::toNativeSeparators(file);
    if (!reason.isEmpty()) {
        if (error)
            *error = reason;
        m_parts.log->append(LogView::Severity::Error, tr("Could not save the session “%1”: %2").arg(shown, reason));
        emit errorOccurred(tr("Could Not Save Session"), tr("Quantscope could not save “%1”.").arg(shown), reason);
        return false;
    }
    m_file = file;
    emit fileChanged();
    emit statusMessage(tr("Saved %1").arg(shown));
    m_parts.log->append(LogView::Severity::Info, tr("Saved the session %1").arg(shown));
    return true;
}

bool SessionController::open(const QString &file)
{
    Session s;
    QString error;
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        error = in.errorString();
    } else {
        try {
            s = sessionFromJson(nlohmann::json::parse(in.readAll().toStdString()));
        } catch (const nlohmann::json::exception &e) {
            error = tr("not valid JSON (%1)").arg(QString::fromUtf8(e.what()));
        } catch (const std::exception &e) {
            error = coremessages::translated(std::string(e.what()));
        }
    }
    const auto shown = QDir::toNativeSeparators(file);
    auto *log = m_parts.log;
    if (!error.isEmpty()) {
        log->append(LogView::Severity::Error, tr("Could not open the session “%1”: %2").arg(shown, error));
        emit errorOccurred(tr("Could Not Open Session"), tr("Quantscope could not open the session “%1”.").arg(shown),
                           error);
        return false;
    }

    // A running job would overwrite what the session restores.
    m_parts.jobs->cancel();
    auto *panel = m_parts.panel;
    for (const auto &problem : panel->setConfigurations(s.configs))
        log->append(LogView::Severity::Warning, problem);
    panel->setDevice(fromStd(s.device));
    panel->setBins(s.bins);
    panel->setSymlog(s.symlog);
    m_parts.jobs->setResults(std::make_shared<const QuantizeJobResult>(std::move(s.results)));
    if (m_parts.layers)
        m_parts.layers->setLines(
            s.scanLines.empty() ? nullptr
                                : std::make_shared<const std::vector<nlohmann::ordered_json>>(std::move(s.scanLines)));
    const auto &v = s.view;
    if (v.is_object()) {
        auto *distribution = m_parts.distribution;
        distribution->setLogY(v.value("log_y", true));
        distribution->setChannelAxis(v.value("channel_axis", 1));
        distribution->setOverlapConfig(fromStd(v.value("overlap", std::string())));
        distribution->setCurrentTensor(fromStd(v.value("tensor", std::string())));
        m_parts.tabs->setCurrentIndex(v.value("tab", 0));
    }
    m_file = file;
    emit fileChanged();
    emit opened(file);
    log->append(LogView::Severity::Info, tr("Opened the session %1").arg(shown));

    LoadController::Restore restore;
    for (const auto &t : s.selected)
        restore.selected << fromStd(t);
    restore.activation = fromStd(s.activation);
    if (s.capture)
        restore.capture = fromStd(s.capture->path);
    if (s.activationSource) {
        OpenRequest a;
        a.path = fromStd(s.activationSource->path);
        a.lenient = s.activationSource->lenient;
        m_parts.loads->openActivation(a, restore.activation);
        restore.activation.clear();
        restore.activationFromFile = true;
    }
    if (s.checkpoint) {
        OpenRequest request;
        request.demo = s.checkpoint->demo;
        request.path = fromStd(s.checkpoint->path);
        request.lenient = s.checkpoint->lenient;
        m_parts.loads->open(request, restore);
    }
    return true;
}

} // namespace quantscope
