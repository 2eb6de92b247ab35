// SPDX-License-Identifier: MIT
#include "healthcontroller.h"

#include "healthview.h"
#include "io/checkpoint.h"
#include "loadcontroller.h"
#include "tensorbrowser.h"

#include <QTabWidget>

namespace quantscope {

HealthController::HealthController(QObject *parent, const LoadController *loads, TensorBrowser *browser,
                                   QTabWidget *tabs)
    : QObject(parent), m_loads(loads), m_browser(browser), m_tabs(tabs)
{
    m_pool.setMaxThreadCount(1);
    m_view = new HealthView(tabs);
    m_view->setObjectName(QStringLiteral("healthView")); // quantscope --view health
    tabs->setTabToolTip(tabs->addTab(m_view, tr("&Health")),
                        tr("Checkpoint health: every problem of the opened checkpoint in one report"));
    connect(m_view, &HealthView::checkRequested, this, &HealthController::check);
    connect(loads, &LoadController::documentOpened, m_view,
            [this](const OpenResult &) { m_view->setCheckpointName(m_loads->documentName()); });
    connect(m_view, &HealthView::cancelRequested, this, [this] {
        m_job.cancel();
        m_view->jobFinished(tr("Cancelled"));
        emit jobEnded();
    });
    connect(m_view, &HealthView::tensorClicked, this, [this](const QString &tensor) {
        m_browser->setSelectedTensors({tensor});
        m_tabs->setCurrentIndex(0); // the Distribution view of that tensor
    });
    m_job.setCancelHandler([this] { emit m_view->cancelRequested(); });
}

HealthController::~HealthController()
{
    shutdown();
}

void HealthController::shutdown()
{
    m_job.cancel();
    m_pool.waitForDone();
}

void HealthController::check()
{
    const auto ck = m_loads->checkpoint();
    if (!ck)
        return;
    const std::filesystem::path path = ck->path();
    m_view->jobStarted();
    m_job.start(
        tr("Health check of %1").arg(m_loads->documentName()),
        [path](const CancelToken &cancel) {
            return std::make_shared<const DoctorReport>(runDoctor(path, {}, &cancel));
        },
        [this](std::shared_ptr<const DoctorReport> report) {
            m_view->setReport(*report);
            m_view->jobFinished({});
            emit jobEnded();
        },
        [this](const QString &error) {
            m_view->jobFinished(tr("The check failed: %1").arg(error));
            emit jobEnded();
        });
}

} // namespace quantscope
